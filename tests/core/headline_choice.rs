//! Headlines that name the right judge (issue #30 §3): the accuracy and
//! trust lines name the configuration the ranking puts first (or the one the
//! user chose), the same one in both with the same labels; owners' runs are
//! one configuration; a configuration nothing labelled is said, not dropped;
//! few labels give a pooled line and how many more labels an interval needs.

use jury::domain::{Agreement, ComboKey, Confidence, ConfidenceSource, Mode, Protocol, Value};
use jury::report::estimate::{self, POOLED, Sampling};
use jury::report::headline::{Choice, unranked};
use jury::report::pairs::{Comparison, Confident, Pair, PairContext, Readings};
use jury::report::{rank, trust};
use std::collections::BTreeMap;
use std::sync::Arc;

/// First in the store's (alphabetical) order, and the worse judge.
const WORSE: &str = "awag mode 3 · a-model";
/// Last in the store's order, and the better judge.
const BETTER: &str = "awag mode 3 · z-model";

fn agree(right: bool) -> Value {
    Value::Agreement(if right {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

/// Builds readings and the judge-vs-human pairs of the same verdicts.
#[derive(Default)]
struct World {
    readings: Option<Readings>,
    pairs: Vec<Pair>,
}

impl World {
    fn readings(&mut self) -> &mut Readings {
        self.readings.get_or_insert_with(|| Readings {
            verdicts: Vec::new(),
            labels: Vec::new(),
            confidences: Vec::new(),
        })
    }

    fn label(&mut self, persona: &str, key: &Arc<ComboKey>, right: bool) {
        self.readings().labels.push((
            Arc::from(persona),
            key.clone(),
            Arc::from("alice"),
            agree(right),
        ));
    }

    /// A verdict; with `person` (alice's reading), also its pair.
    fn verdict(
        &mut self,
        judge: &str,
        persona: &str,
        key: &Arc<ComboKey>,
        right: bool,
        person: Option<bool>,
    ) {
        let r = self.readings();
        r.verdicts.push((
            Arc::from(judge),
            Arc::from(persona),
            key.clone(),
            agree(right),
        ));
        r.confidences.push(Some(Confident {
            value: agree(right),
            confidence: Confidence {
                value: 0.9,
                source: ConfidenceSource::Logprobs,
                expected_score: None,
            },
        }));
        if let Some(p) = person {
            self.pairs.push(Pair {
                ctx: PairContext {
                    key: key.clone(),
                    protocol: Protocol::Awag,
                    persona: Arc::from(persona),
                    mode: Some(Mode::Three),
                    model: Arc::from(judge.rsplit(" · ").next().unwrap_or("")),
                    run: Some(1),
                },
                left: Arc::from(judge),
                right: Arc::from("alice"),
                a: agree(right),
                b: agree(p),
            });
        }
    }

    fn finish(self) -> (Readings, Vec<rank::Ranking>) {
        let pairs = BTreeMap::from([(Comparison::JudgeVsHuman, self.pairs)]);
        let rankings = rank::rankings(&pairs, None, 50, 1);
        (self.readings.expect("some readings"), rankings)
    }
}

fn key(item: usize, classification: &str) -> Arc<ComboKey> {
    Arc::new(ComboKey::new(&format!("i{item}"), classification, "p"))
}

/// Two judges on the same 40 labelled and 60 unlabelled combinations of
/// `urgency`; the better one is last in the store's order.
fn two_judges() -> World {
    let mut w = World::default();
    for i in 0..100 {
        let k = key(i, "urgency");
        let truth = i % 10 < 7;
        let labelled = i < 40;
        if labelled {
            w.label("kenton", &k, truth);
        }
        let person = labelled.then_some(truth);
        // The worse judge is wrong on every fourth; the better on every tenth.
        w.verdict(WORSE, "kenton", &k, truth ^ (i % 4 == 0), person);
        w.verdict(BETTER, "kenton", &k, truth ^ (i % 10 == 3), person);
    }
    w
}

#[test]
fn the_accuracy_and_trust_lines_name_the_configuration_ranked_first() {
    let (readings, rankings) = two_judges().finish();
    assert_eq!(rankings.len(), 1);
    assert_eq!(rankings[0].configurations[0].judge, BETTER);
    let sampling = Sampling::default();
    let es = estimate::estimates(&readings, 0.05, None, &sampling);
    let ts = trust::thresholds(&readings, 0.1, 0.1, 30, None, &sampling);
    // Equal labels and judged combinations: a tie-break of their own would
    // name the store's first, the configuration ranked last.
    assert!(es.iter().all(|e| (e.n, e.big_n) == (40, 60)));
    let choice = Choice::new(&rankings, None);
    let lines = estimate::headlines(&es, &[], &choice);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].contains(BETTER) && !lines[0].contains(WORSE),
        "{}",
        lines[0]
    );
    let trust_lines = trust::headlines(&ts, &es, &choice);
    assert_eq!(trust_lines.len(), 1);
    assert!(trust_lines[0].contains(BETTER), "{}", trust_lines[0]);
    // The same labels behind both lines.
    assert!(lines[0].contains("+ 40 labels"), "{}", lines[0]);
    assert!(
        trust_lines[0].contains("40 calibration pairs"),
        "{}",
        trust_lines[0]
    );

    // The user's choice wins, in both lines.
    let mine = Choice::new(&rankings, Some("A-MODEL"));
    let lines = estimate::headlines(&es, &[], &mine);
    assert!(lines[0].contains(WORSE), "{}", lines[0]);
    assert!(trust::headlines(&ts, &es, &mine)[0].contains(WORSE));
}

#[test]
fn runs_under_each_items_owner_are_one_configuration_as_ranked() {
    let mut w = two_judges();
    // A third judge ran each item under its owner's persona.
    for i in 0..100 {
        let persona = if i % 2 == 0 { "kenton" } else { "maria" };
        let k = key(i, "urgency");
        let truth = i % 10 < 7;
        if i < 40 && persona == "maria" {
            w.label("maria", &k, truth);
        }
        let person = (i < 40).then_some(truth);
        w.verdict("awag mode 3 · owner-model", persona, &k, truth, person);
    }
    let (readings, rankings) = w.finish();
    let owner = rank::one_persona_per_item(&["kenton", "maria"]);
    let ranked: Vec<(&str, &str)> = rankings[0]
        .configurations
        .iter()
        .map(|c| (c.judge.as_str(), c.persona.as_str()))
        .collect();
    assert_eq!(ranked[0], ("awag mode 3 · owner-model", owner.as_str()));
    let es = estimate::estimates(&readings, 0.05, None, &Sampling::default());
    let mine: Vec<_> = es
        .iter()
        .filter(|e| e.judge == "awag mode 3 · owner-model")
        .collect();
    assert_eq!(mine.len(), 1, "one configuration, not one per persona");
    assert_eq!(
        (mine[0].persona.as_str(), mine[0].n, mine[0].big_n),
        (owner.as_str(), 40, 60)
    );
    let lines = estimate::headlines(&es, &[], &Choice::new(&rankings, None));
    assert!(lines[0].contains("owner-model"), "{}", lines[0]);
}

#[test]
fn a_configuration_whose_persona_has_no_labels_is_listed_as_not_ranked() {
    let mut w = two_judges();
    for i in 0..10 {
        w.verdict("awag mode 3 · m", "nobody", &key(i, "urgency"), true, None);
    }
    let (readings, rankings) = w.finish();
    let lines = unranked(&readings, &rankings);
    assert_eq!(
        lines,
        ["awag mode 3 · m as nobody — not ranked: no labels under persona nobody"]
    );
}

#[test]
fn few_labels_give_a_pooled_line_and_how_many_more_labels_an_interval_needs() {
    let mut w = World::default();
    for (c, classification) in ["urgency", "topic"].into_iter().enumerate() {
        for i in 0..100 {
            let k = key(i + 1000 * c, classification);
            let truth = i % 10 < 7;
            let person = (i < 27).then_some(truth);
            if i < 27 {
                w.label("kenton", &k, truth);
            }
            w.verdict(BETTER, "kenton", &k, truth ^ (i % 10 == 3), person);
        }
    }
    let (readings, rankings) = w.finish();
    let s = Sampling::default();
    let es = estimate::estimates(&readings, 0.05, None, &s);
    let pooled = estimate::pooled(&readings, 0.05, None, &s);
    assert_eq!(pooled.len(), 1);
    assert_eq!(
        (
            pooled[0].classification.as_str(),
            pooled[0].n,
            pooled[0].big_n
        ),
        (POOLED, 54, 146)
    );
    let lines = estimate::headlines(&es, &pooled, &Choice::new(&rankings, None));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[2].starts_with(POOLED), "{}", lines[2]);
    let plan = es[0].plan.expect("27 labels are far from ±0.05");
    assert!(plan.more > 0);
    assert!(
        lines[0].contains(&format!(
            "label {} more for an interval of ±0.05 (an estimate",
            plan.more
        )),
        "{}",
        lines[0]
    );
}

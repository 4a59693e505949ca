//! A small world of verdicts, labels and their judge-vs-human pairs for the
//! headline tests (issue #30 §3): readings for the estimates and trust
//! thresholds, pairs for the rankings, from the same verdicts.

use jury::domain::{Agreement, ComboKey, Confidence, ConfidenceSource, Mode, Protocol, Value};
use jury::report::pairs::{Comparison, Confident, Pair, PairContext, Readings};
use jury::report::{GroupBy, rank};
use std::collections::BTreeMap;
use std::sync::Arc;

pub fn agree(right: bool) -> Value {
    Value::Agreement(if right {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

pub fn key(item: usize, classification: &str, perspective: &str) -> Arc<ComboKey> {
    Arc::new(ComboKey::new(
        &format!("i{item}"),
        classification,
        perspective,
    ))
}

#[derive(Default)]
pub struct World {
    pub readings: Option<Readings>,
    pub pairs: Vec<Pair>,
}

impl World {
    pub fn readings(&mut self) -> &mut Readings {
        self.readings.get_or_insert_with(|| Readings {
            verdicts: Vec::new(),
            labels: Vec::new(),
            confidences: Vec::new(),
        })
    }

    /// `person`'s label (as persona `persona`) on a combination.
    pub fn label(&mut self, persona: &str, person: &str, k: &Arc<ComboKey>, right: bool) {
        self.readings().labels.push((
            Arc::from(persona),
            k.clone(),
            Arc::from(person),
            agree(right),
        ));
    }

    /// A verdict with its confidence; one pair per person's reading in
    /// `people` (person, reading).
    pub fn verdict(
        &mut self,
        judge: &str,
        persona: &str,
        k: &Arc<ComboKey>,
        right: bool,
        confidence: f64,
        people: &[(&str, bool)],
    ) {
        let r = self.readings();
        r.verdicts.push((
            Arc::from(judge),
            Arc::from(persona),
            k.clone(),
            agree(right),
        ));
        r.confidences.push(Some(Confident {
            value: agree(right),
            confidence: Confidence {
                value: confidence,
                source: ConfidenceSource::Logprobs,
                expected_score: None,
            },
        }));
        for (person, reading) in people {
            self.pairs.push(Pair {
                ctx: PairContext {
                    key: k.clone(),
                    protocol: Protocol::Awag,
                    persona: Arc::from(persona),
                    mode: Some(Mode::Three),
                    model: Arc::from(judge.rsplit(" · ").next().unwrap_or("")),
                    run: Some(1),
                },
                left: Arc::from(judge),
                right: Arc::from(*person),
                a: agree(right),
                b: agree(*reading),
            });
        }
    }

    pub fn pairs(&self) -> BTreeMap<Comparison, Vec<Pair>> {
        BTreeMap::from([(Comparison::JudgeVsHuman, self.pairs.clone())])
    }

    pub fn rankings(&self, by: Option<GroupBy>) -> Vec<rank::Ranking> {
        rank::rankings(&self.pairs(), by, 50, 1)
    }

    pub fn finish(self) -> Readings {
        self.readings.expect("some readings")
    }
}

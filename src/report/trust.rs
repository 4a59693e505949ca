//! `jury trust`: which verdicts can stand without a person. Per
//! classification, perspective and judge configuration, the lowest
//! confidence threshold whose trusted verdicts agree with people at a rate
//! ≥ 1 − α with probability ≥ 1 − δ ([`crate::analytics::trust`]), and its
//! coverage: the share of the judge's verdicts (those with a confidence) at
//! or above it. The rest need a person.
//!
//! Calibration pairs are the labelled combinations with the judge's
//! confidence and whether the judge's reading (AGREE or Likert ≥ 4 against
//! DISAGREE or Likert ≤ 2) is people's (their majority, as `jury estimate`
//! reads it, or one person's). The guarantee holds only when the labelled
//! combinations are a random sample of those judged.

use super::estimate::{Sampling, people_reading, reading};
use super::pairs::Readings;
use crate::analytics::trust::trust_threshold;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One classification, perspective and judge configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trust {
    pub classification: String,
    pub perspective: String,
    /// The judge as the report names it (protocol, mode, model, prompt set).
    pub judge: String,
    pub persona: String,
    pub alpha: f64,
    pub delta: f64,
    /// Fewest calibration pairs at or above a candidate threshold.
    pub min_calibration: usize,
    /// Labelled combinations with a confidence and a decided reading on both sides.
    pub n_calibration: usize,
    /// Of those, how many had a label given in the workbench's random
    /// sample order, and how many only labels a person chose.
    pub calibration_sampled: usize,
    pub calibration_chosen: usize,
    /// None: no threshold meets the guarantee.
    pub threshold: Option<f64>,
    /// Share of the judged combinations (with a confidence) whose decided
    /// verdict is at or above the threshold; 0 without one.
    pub coverage: f64,
    /// Judged combinations with a confidence.
    pub n_judged: usize,
    /// Calibration pairs at or above the threshold, and their disagreements.
    pub n_trusted: usize,
    pub disagreements: usize,
    /// The Clopper–Pearson upper bound of the trusted pairs' disagreement rate.
    pub upper_bound: Option<f64>,
    /// `logprobs`, `repeats`, or both joined with `+`.
    pub confidence_source: String,
}

/// Every trust threshold the readings support.
pub fn thresholds(
    readings: &Readings,
    alpha: f64,
    delta: f64,
    min_calibration: usize,
    who: Option<&str>,
    sampling: &Sampling,
) -> Vec<Trust> {
    let labels = super::estimate::label_index(readings, sampling);
    type Key = (String, String, Arc<str>, Arc<str>);
    #[derive(Default)]
    struct Collect {
        calibration: Vec<(f64, bool)>,
        sampled: usize,
        all: Vec<f64>,
        /// Confidences of the decided verdicts (an undecided Likert 3
        /// cannot stand for a reading, however sure: it needs a person).
        decided: Vec<f64>,
        sources: std::collections::BTreeSet<&'static str>,
    }
    let mut groups: BTreeMap<Key, Collect> = BTreeMap::new();
    for ((judge, persona, key, _), confident) in readings.verdicts.iter().zip(&readings.confidences)
    {
        let Some(c) = confident else { continue };
        let g = groups
            .entry((
                key.classification_id.clone(),
                key.perspective_id.clone(),
                judge.clone(),
                persona.clone(),
            ))
            .or_default();
        g.all.push(c.confidence.value);
        g.sources.insert(c.confidence.source.as_str());
        let Some(j) = reading(&c.value) else { continue };
        g.decided.push(c.confidence.value);
        if let Some((ls, sampled)) = labels.get(&(&**persona, &**key))
            && let Ok(people) = people_reading(ls, who)
        {
            g.calibration.push((c.confidence.value, j == people));
            g.sampled += usize::from(*sampled);
        }
    }
    groups
        .into_iter()
        .map(|((classification, perspective, judge, persona), g)| {
            let t = trust_threshold(&g.calibration, alpha, delta, min_calibration);
            Trust {
                classification,
                perspective,
                judge: judge.to_string(),
                persona: persona.to_string(),
                alpha,
                delta,
                min_calibration,
                n_calibration: g.calibration.len(),
                calibration_sampled: g.sampled,
                calibration_chosen: g.calibration.len() - g.sampled,
                threshold: t.threshold,
                coverage: t.threshold.map_or(0.0, |l| {
                    g.decided.iter().filter(|&&c| c >= l).count() as f64 / g.all.len() as f64
                }),
                n_judged: g.all.len(),
                n_trusted: t.n_trusted,
                disagreements: t.disagreements,
                upper_bound: t.upper_bound,
                confidence_source: g.sources.into_iter().collect::<Vec<_>>().join("+"),
            }
        })
        .collect()
}

/// Said when no verdict has a confidence.
pub const NO_CONFIDENCE: &str = "no verdict has a confidence: run the judge with --confidence logprobs (token probabilities), or judge the same combinations again with another --shuffle-seed (repeats)";

/// The thresholds as text, one block per configuration.
pub fn table(ts: &[Trust]) -> String {
    let Some(first) = ts.first() else {
        return NO_CONFIDENCE.to_string();
    };
    let mut out = format!(
        "Verdicts at or above the threshold agree with people at a rate of at least {} with probability at least {} \
         (valid only if the labelled combinations are a random sample of the judged ones).\n",
        pct(1.0 - first.alpha),
        pct(1.0 - first.delta)
    );
    for t in ts {
        let persona = match crate::domain::PersonaRef::from_id(&t.persona) {
            crate::domain::PersonaRef::None => String::new(),
            crate::domain::PersonaRef::Persona(p) => format!(" (persona {p})"),
        };
        out.push_str(&format!(
            "\n{} · {} · {}{}\n",
            t.classification, t.perspective, t.judge, persona
        ));
        match t.threshold {
            Some(l) => out.push_str(&format!(
                "  threshold {l:.4}: {} of {} verdicts stand without a person; {} calibration pairs, {} of {} trusted disagree (upper bound {:.4} ≤ {})\n",
                pct(t.coverage),
                t.n_judged,
                t.n_calibration,
                t.disagreements,
                t.n_trusted,
                t.upper_bound.unwrap_or(1.0),
                t.alpha
            )),
            None => out.push_str(&format!(
                "  no threshold meets it: every one of the {} verdicts needs a person ({})\n",
                t.n_judged,
                if t.n_calibration < t.min_calibration.max(1) {
                    format!(
                        "{} labelled combination(s) with a confidence, fewer than --min-calibration {}: label more, as a random sample",
                        t.n_calibration, t.min_calibration
                    )
                } else {
                    format!(
                        "{} calibration pairs: even the most confident verdicts disagree with people too often",
                        t.n_calibration
                    )
                }
            )),
        }
        if t.calibration_chosen > 0 {
            out.push_str(&format!(
                "  {} of {} calibration labels chosen by a person, not sampled: the guarantee assumes a random sample (--sampled-only uses the {} sampled)\n",
                t.calibration_chosen, t.n_calibration, t.calibration_sampled
            ));
        }
        out.push_str(&format!("  confidence from {}\n", t.confidence_source));
    }
    out.trim_end().to_string()
}

fn pct(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Per classification, the one line to head a view with: the configuration
/// whose threshold lets the most verdicts stand without a person, else the
/// one with the most calibration pairs and why none qualifies. Only
/// configurations whose verdicts carry a confidence.
pub fn headlines(ts: &[Trust]) -> Vec<String> {
    let mut best: BTreeMap<&str, &Trust> = BTreeMap::new();
    for t in ts.iter().filter(|t| t.n_judged > 0) {
        let rank = |t: &Trust| {
            (
                t.threshold.is_some(),
                (t.coverage * 1e6) as u64,
                t.n_calibration,
            )
        };
        best.entry(&t.classification)
            .and_modify(|b| {
                if rank(t) > rank(b) {
                    *b = t;
                }
            })
            .or_insert(t);
    }
    best.values()
        .map(|t| {
            let who = format!(
                "{} as {}",
                crate::sanitize::one_line(&t.judge, 40),
                crate::sanitize::one_line(&t.persona, 20)
            );
            match t.threshold {
                Some(l) => format!(
                    "{}: trust verdicts with confidence ≥ {l:.2} — {} of {} need no person; they agree with people ≥ {} with probability ≥ {} ({who}, {} calibration pairs)",
                    t.classification,
                    pct(t.coverage),
                    t.n_judged,
                    pct(1.0 - t.alpha),
                    pct(1.0 - t.delta),
                    t.n_calibration
                ),
                None => format!(
                    "{}: no confidence threshold guarantees {} agreement at {} — all {} verdict(s) need a person ({who}, {} calibration pairs; jury trust)",
                    t.classification,
                    pct(1.0 - t.alpha),
                    pct(1.0 - t.delta),
                    t.n_judged,
                    t.n_calibration
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ComboKey, Confidence, ConfidenceSource, Value};
    use crate::report::pairs::Confident;

    /// A Likert 3 cannot stand for a reading however sure the judge is: it
    /// counts among the judged combinations, never among the trusted.
    #[test]
    fn an_undecided_verdict_is_judged_but_never_trusted() {
        let judge: Arc<str> = Arc::from("awag mode 2 · m");
        let persona: Arc<str> = Arc::from("p");
        let who: Arc<str> = Arc::from("alice");
        let mut readings = Readings {
            verdicts: Vec::new(),
            labels: Vec::new(),
            confidences: Vec::new(),
        };
        for i in 0..40 {
            let key = Arc::new(ComboKey::new(&format!("i{i}"), "c", "q"));
            // 30 labelled, agreeing, at 0.9; 5 unlabelled Likert 5 and 5
            // unlabelled Likert 3, all at 0.95.
            let (value, conf) = match i {
                0..30 => (Value::Likert(5), 0.9),
                30..35 => (Value::Likert(5), 0.95),
                _ => (Value::Likert(3), 0.95),
            };
            readings
                .verdicts
                .push((judge.clone(), persona.clone(), key.clone(), value));
            readings.confidences.push(Some(Confident {
                value,
                confidence: Confidence {
                    value: conf,
                    source: ConfidenceSource::Logprobs,
                    expected_score: None,
                },
            }));
            if i < 30 {
                readings
                    .labels
                    .push((persona.clone(), key, who.clone(), Value::Likert(5)));
            }
        }
        let none = Sampling {
            sampled: Default::default(),
            only: false,
        };
        let t = thresholds(&readings, 0.2, 0.1, 10, None, &none);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].threshold, Some(0.9));
        assert_eq!(t[0].n_judged, 40);
        assert_eq!(t[0].coverage, 35.0 / 40.0);
        let lines = headlines(&t);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("c: trust verdicts with confidence ≥ 0.90"),
            "{}",
            lines[0]
        );
    }
}

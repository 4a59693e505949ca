//! The escalation queue (`jury trust --needs-person`, the workbench's "needs
//! a person" filter): the combinations no person has labelled whose
//! verdict cannot stand without one. Per classification, the verdicts of
//! the configuration the trust headline names ([`super::headline::trusts`]:
//! the user's choice, else the ranking's first) below its threshold, without a confidence or undecided; and where no
//! judge is trusted (no verdict with a confidence, or no threshold meets
//! the guarantee), every judged combination no person labelled — nothing
//! trusted means everything needs a person, never that nothing does.

use super::headline::{Choice, Named};
use super::pairs::{Confident, Readings};
use super::trust::{NO_CONFIDENCE, Trust, VIEW_ALPHA, VIEW_DELTA, VIEW_MIN_CALIBRATION};
use crate::domain::{ComboKey, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::collections::HashSet;
use std::sync::Arc;

/// A combination that needs a person.
#[derive(Debug, Clone, PartialEq)]
pub struct Escalation {
    pub persona: Arc<str>,
    pub key: Arc<ComboKey>,
    /// The trusted configuration (as the report names it) whose verdict
    /// cannot stand; `None`: no judge is trusted for the classification.
    pub judge: Option<Arc<str>>,
    /// That verdict's value and confidence (when known), and the
    /// configuration's threshold.
    pub value: Option<Value>,
    pub confidence: Option<f64>,
    pub threshold: Option<f64>,
}

/// Whether some classification's headline configuration has a threshold.
pub fn any_trusted(named: &BTreeMap<&str, Named<'_>>) -> bool {
    named
        .values()
        .any(|n| n.trust.is_some_and(|t| t.threshold.is_some()))
}

/// The escalation queue, in the readings' order: per classification, the
/// headline's configuration (`named`, from [`super::headline::trusts`])
/// when it has a threshold: its verdicts that cannot stand (below its threshold,
/// without a confidence, undecided) on combinations no person labelled
/// (for that persona); for a classification no judge is trusted for, each
/// judged combination no person labelled, once.
pub fn needs_a_person(readings: &Readings, named: &BTreeMap<&str, Named<'_>>) -> Vec<Escalation> {
    let labelled: HashSet<(&str, &ComboKey)> = readings
        .labels
        .iter()
        .map(|(persona, key, _, _)| (&**persona, &**key))
        .collect();
    let mut listed: HashSet<(&str, &ComboKey)> = HashSet::new();
    let mut out = Vec::new();
    for (i, (judge, persona, key, value)) in readings.verdicts.iter().enumerate() {
        if labelled.contains(&(&**persona, &**key)) {
            continue;
        }
        let trusted = named
            .get(key.classification_id.as_str())
            .and_then(|n| n.trust)
            .filter(|t| t.threshold.is_some());
        let Some(t) = trusted else {
            // No judge is trusted here: the combination needs a person,
            // whichever configurations judged it.
            if listed.insert((&**persona, &**key)) {
                out.push(Escalation {
                    persona: persona.clone(),
                    key: key.clone(),
                    judge: None,
                    value: None,
                    confidence: None,
                    threshold: None,
                });
            }
            continue;
        };
        let theirs =
            t.perspective == key.perspective_id && *t.judge == **judge && *t.persona == **persona;
        if !theirs {
            continue;
        }
        let confident: Option<&Confident> = readings.confidences.get(i).and_then(Option::as_ref);
        let stands = confident.is_some_and(|c| {
            t.threshold.is_some_and(|l| c.confidence.value >= l)
                && super::estimate::reading(&c.value).is_some()
        });
        if !stands {
            out.push(Escalation {
                persona: persona.clone(),
                key: key.clone(),
                judge: Some(judge.clone()),
                value: Some(confident.map_or(*value, |c| c.value)),
                confidence: confident.map(|c| c.confidence.value),
                threshold: t.threshold,
            });
        }
    }
    out
}

/// The escalation queue of the whole store at the views' levels, every
/// label counted (the workbench's "needs a person" filter), and whether
/// any judge is trusted: per classification the configuration the ranking
/// puts first, as the agreement view's trust line names it; once the store
/// holds a finished `jury run --cascade`, what its last judge cannot keep
/// ([`super::cascade_queue::latest_cascade_queue`]).
pub fn escalation_queue(
    store: &crate::store::Store,
) -> crate::store::Result<(Vec<Escalation>, bool)> {
    let builder = super::pairs::Builder::read(store)?;
    let readings = builder.readings_with_confidence();
    let sampling = super::estimate::Sampling::read(store, false, false)?;
    // After `jury run --cascade`: only what its last judge cannot keep.
    if let Some(c) = super::cascade_queue::latest_cascade_queue(store, &readings, &sampling)? {
        return Ok((c.queue, c.trusted));
    }
    let (pairs, _) = builder.finish_with_positions();
    let rankings = super::rank::rankings(&pairs, None, QUEUE_RESAMPLES, super::DEFAULT_SEED);
    drop(pairs);
    let choice = Choice::new(&rankings, None);
    let ts = super::trust::thresholds(
        &readings,
        VIEW_ALPHA,
        VIEW_DELTA,
        VIEW_MIN_CALIBRATION,
        None,
        &sampling,
    );
    let es = super::estimate::estimates(&readings, 0.05, None, &sampling);
    let named = super::headline::trusts(&ts, &es, &choice);
    Ok((needs_a_person(&readings, &named), any_trusted(&named)))
}

/// Resamples of the ranking that orders the configurations (its order is
/// its point estimates', so few do).
const QUEUE_RESAMPLES: usize = 50;

/// Why no judge is trusted, for the queue's first line.
fn why_untrusted(ts: &[Trust]) -> String {
    match ts.first() {
        None => NO_CONFIDENCE.to_string(),
        Some(t) => format!(
            "no confidence threshold guarantees {} agreement at {} (jury trust says why)",
            pct(1.0 - t.alpha),
            pct(1.0 - t.delta)
        ),
    }
}

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// The escalation queue as text: one line per combination that needs a
/// person, headed by whether any judge is trusted (`trusted`: some
/// headline configuration has a threshold, [`any_trusted`]).
pub fn needs_table(queue: &[Escalation], ts: &[Trust], trusted: bool) -> String {
    let mut out = match (queue.is_empty(), trusted) {
        (true, true) => return "No verdict of a trusted configuration needs a person.".to_string(),
        (true, false) => {
            return format!(
                "No judge is trusted yet ({}), and every judged combination has a person's label.",
                why_untrusted(ts)
            );
        }
        (false, true) => format!(
            "{} combination(s) need a person (item · classification · perspective · persona: value, why):\n",
            queue.len()
        ),
        (false, false) => format!(
            "No judge is trusted yet ({}): every combination no person labelled needs one, {} combination(s) (item · classification · perspective · persona):\n",
            why_untrusted(ts),
            queue.len()
        ),
    };
    let one = |s: &str| crate::sanitize::one_line(s, 60);
    for e in queue {
        let combo = format!(
            "{} · {} · {} · {}",
            one(&e.key.item_id),
            one(&e.key.classification_id),
            one(&e.key.perspective_id),
            one(&e.persona)
        );
        let (Some(judge), Some(value)) = (&e.judge, e.value) else {
            out.push_str(&format!(
                "{combo} (no judge is trusted for this classification)\n"
            ));
            continue;
        };
        let why = match (e.confidence, e.threshold) {
            (_, None) => "no threshold meets the guarantee".to_string(),
            (None, Some(_)) => "no confidence".to_string(),
            (Some(c), Some(l)) if c < l => format!("confidence {c:.3} < {l:.3}"),
            (Some(_), Some(_)) => "undecided".to_string(),
        };
        out.push_str(&format!(
            "{combo}: {} ({why}; {})\n",
            value.as_text(),
            one(judge)
        ));
    }
    out.trim_end().to_string()
}

/// One escalation as `jury trust --needs-person --format json` writes it
/// (`judge`, `value` null: no judge is trusted for the classification).
#[derive(Debug, Serialize)]
pub struct EscalationRow<'a> {
    pub item: &'a str,
    pub classification: &'a str,
    pub perspective: &'a str,
    pub persona: &'a str,
    pub judge: Option<&'a str>,
    pub value: Option<serde_json::Value>,
    pub confidence: Option<f64>,
    pub threshold: Option<f64>,
}

impl Escalation {
    pub fn row(&self) -> EscalationRow<'_> {
        EscalationRow {
            item: &self.key.item_id,
            classification: &self.key.classification_id,
            perspective: &self.key.perspective_id,
            persona: &self.persona,
            judge: self.judge.as_deref(),
            value: self.value.map(|v| v.to_json()),
            confidence: self.confidence,
            threshold: self.threshold,
        }
    }
}

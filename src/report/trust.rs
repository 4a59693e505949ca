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
//!
//! The headlines and the escalation queue trust, per classification, the
//! configuration the headline names: the one the user chose or the ranking
//! puts first ([`super::headline::trusts`]). Choosing among K calibrated
//! configurations by the data can break the guarantee (choosing the most
//! coverage failed 6–8 % of the time among 3 and 16–28 % among 10 in
//! simulation, target ≤ δ), so each of the K configurations that could be
//! chosen is calibrated at
//! δ/K (Bonferroni): whichever is chosen keeps 1 − δ.

use super::estimate::{Sampling, reading, reference_reading};
use super::pairs::Readings;
use crate::analytics::trust::{Candidate, pairs_to_reach, trust_threshold};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use super::escalation::{
    Escalation, EscalationRow, any_trusted, escalation_queue, needs_a_person, needs_table,
};

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
    /// Labelled combinations left out of calibration because the judge
    /// selected their labels (see `estimate::LeftOut::judge_selected`).
    pub judge_selected_left_out: usize,
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
    /// `logprobs`, `repeats`, `imported`, `verbalised`, or several joined
    /// with `+`: as each verdict's confidence was stored.
    pub confidence_source: String,
    /// Configurations of this classification the views choose among (those
    /// with at least `min_calibration` calibration pairs, at least 1), and
    /// the level each is calibrated at: δ/K, so that the chosen one keeps
    /// the guarantee at δ.
    pub configurations: usize,
    pub delta_each: f64,
    /// Fewest calibration pairs with which α can be met at all at
    /// `delta_each` (`⌈ln δ / ln(1 − α)⌉`), and where the walk starts (the
    /// larger of that and `min_calibration`).
    pub reachable_from: usize,
    pub start: usize,
    /// The first candidate the walk tested (`None`: too few pairs).
    pub first: Option<Candidate>,
    /// Without a threshold: about how many calibration pairs the walk's
    /// first step would need (`start` when there are too few; at the rate
    /// its most confident pairs disagree, when they disagree too often and
    /// that rate is below α); `None` with a threshold or when no number
    /// would do.
    pub pairs_needed: Option<usize>,
    /// Of the calibration pairs: where each combination's reference came
    /// from (an adjudication, people's majority, one person), and the
    /// labelled combinations left out because people tied.
    pub reference: crate::domain::ReferenceCounts,
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
    // A judge run under each item's owner is one configuration, as ranked.
    let owners = super::estimate::owner_configurations(readings);
    type Key = (String, String, Arc<str>, Arc<str>);
    #[derive(Default)]
    struct Collect {
        calibration: Vec<(f64, bool)>,
        sampled: usize,
        judge_left_out: usize,
        all: Vec<f64>,
        /// Confidences of the decided verdicts (an undecided Likert 3
        /// cannot stand for a reading, however sure: it needs a person).
        decided: Vec<f64>,
        sources: std::collections::BTreeSet<&'static str>,
        reference: crate::domain::ReferenceCounts,
    }
    let mut groups: BTreeMap<Key, Collect> = BTreeMap::new();
    for ((judge, persona, key, _), confident) in readings.verdicts.iter().zip(&readings.confidences)
    {
        let Some(c) = confident else { continue };
        let config = owners.get(&**judge).unwrap_or(persona).clone();
        let g = groups
            .entry((
                key.classification_id.clone(),
                key.perspective_id.clone(),
                judge.clone(),
                config,
            ))
            .or_default();
        g.all.push(c.confidence.value);
        g.sources.insert(c.confidence.source.as_str());
        let Some(j) = reading(&c.value) else { continue };
        g.decided.push(c.confidence.value);
        if let Some((ls, _, true)) = labels.get(&(&**persona, &**key))
            && ls.is_empty()
        {
            g.judge_left_out += 1;
        }
        if let Some((ls, sampled, _)) = labels.get(&(&**persona, &**key))
            && !ls.is_empty()
            && who.is_none_or(|w| ls.iter().any(|(p, _)| *p == w))
        {
            match reference_reading(ls, who, sampling.adjudicated(persona, key)) {
                Ok((people, source)) => {
                    g.reference.add(Some(source));
                    g.calibration.push((c.confidence.value, j == people));
                    g.sampled += usize::from(*sampled);
                }
                Err(()) => g.reference.add(None),
            }
        }
    }
    // K per classification: the configurations the views may choose among.
    let mut choices: BTreeMap<&str, usize> = BTreeMap::new();
    for ((classification, ..), g) in &groups {
        if g.calibration.len() >= min_calibration.max(1) {
            *choices.entry(classification.as_str()).or_default() += 1;
        }
    }
    let choices: BTreeMap<String, usize> = choices
        .into_iter()
        .map(|(c, k)| (c.to_string(), k))
        .collect();
    groups
        .into_iter()
        .map(|((classification, perspective, judge, persona), g)| {
            let configurations = choices.get(&classification).copied().unwrap_or(1).max(1);
            let delta_each = delta / configurations as f64;
            let t = trust_threshold(&g.calibration, alpha, delta_each, min_calibration);
            let pairs_needed = match (t.threshold, t.first) {
                (Some(_), _) => None,
                (None, None) => Some(t.start),
                (None, Some(f)) => {
                    pairs_to_reach(f.disagreements as f64 / f.n as f64, alpha, delta_each)
                        .map(|m| m.max(t.start))
                }
            };
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
                judge_selected_left_out: g.judge_left_out,
                threshold: t.threshold,
                coverage: t.threshold.map_or(0.0, |l| {
                    g.decided.iter().filter(|&&c| c >= l).count() as f64 / g.all.len() as f64
                }),
                n_judged: g.all.len(),
                n_trusted: t.n_trusted,
                disagreements: t.disagreements,
                upper_bound: t.upper_bound,
                confidence_source: g.sources.into_iter().collect::<Vec<_>>().join("+"),
                configurations,
                delta_each,
                reachable_from: t.reachable_from,
                start: t.start,
                first: t.first,
                pairs_needed,
                reference: g.reference,
            }
        })
        .collect()
}

/// The levels the views use (the agreement view's and the HTML report's
/// headlines, the workbench's "needs a person" filter): α = δ = 0.1, 30
/// calibration pairs.
pub const VIEW_ALPHA: f64 = 0.1;
pub const VIEW_DELTA: f64 = 0.1;
pub const VIEW_MIN_CALIBRATION: usize = 30;

/// The store's readings (with confidences) and every trust threshold they
/// support: what `jury trust` prints and the escalation queue is made of.
pub fn read_thresholds(
    store: &crate::store::Store,
    alpha: f64,
    delta: f64,
    min_calibration: usize,
    who: Option<&str>,
    sampled_only: bool,
    include_judge_selected: bool,
) -> crate::store::Result<(Readings, Vec<Trust>, usize)> {
    let builder = super::pairs::Builder::read(store)?;
    let refused = builder.refused_confidences();
    let readings = builder.finish_readings_with_confidence();
    let sampling = Sampling::read(store, sampled_only, include_judge_selected)?;
    let ts = thresholds(&readings, alpha, delta, min_calibration, who, &sampling);
    Ok((readings, ts, refused))
}

/// The line saying how many stored confidences were refused at read (outside
/// [0, 1] or not finite: read as no confidence, so their verdicts take no
/// part in a threshold); `None` when none were.
pub fn refused_line(refused: usize) -> Option<String> {
    (refused > 0).then(|| {
        format!(
            "{refused} stored confidence(s) outside [0, 1] or not finite were refused at read: their verdicts count as having no confidence"
        )
    })
}

/// `jury trust --format json`: the thresholds and how many stored
/// confidences were refused at read.
#[derive(Debug, Serialize)]
pub struct TrustReport<'a> {
    pub refused_confidences: usize,
    pub thresholds: &'a [Trust],
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
                why_none(t)
            )),
        }
        if t.configurations > 1 {
            out.push_str(&format!(
                "  calibrated at δ/{k} = {:.4}: {k} configurations judge {} and the views trust the one whose threshold keeps the most, so each is held to δ/{k} (Bonferroni) and the chosen one keeps the guarantee\n",
                t.delta_each,
                t.classification,
                k = t.configurations
            ));
        }
        if t.calibration_chosen > 0 {
            out.push_str(&format!(
                "  {} of {} calibration labels not recorded as sampled: the guarantee assumes a random sample (--sampled-only uses the {} sampled)\n",
                t.calibration_chosen, t.n_calibration, t.calibration_sampled
            ));
        }
        if t.judge_selected_left_out > 0 {
            out.push_str(&format!(
                "  {} labelled combination(s) left out: their labels were selected by the judge (given in a list made of its verdicts, e.g. judge≠human first), which biases the guarantee; --include-judge-selected counts them\n",
                t.judge_selected_left_out
            ));
        }
        out.push_str(&format!(
            "  confidence from {}\n",
            describe_sources(&t.confidence_source)
        ));
    }
    out.trim_end().to_string()
}

/// `logprobs+imported` as a person reads it: what each source is.
fn describe_sources(joined: &str) -> String {
    joined
        .split('+')
        .map(|s| crate::domain::ConfidenceSource::parse(s).map_or(s, |c| c.describe()))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Why no threshold meets the guarantee, in the terms that would change
/// it: too few labels to reach α at all (never the judge's fault), or the
/// most confident verdicts disagreeing with people, and how many labels
/// would lift the limit.
pub fn why_none(t: &Trust) -> String {
    let Some(f) = t.first else {
        if t.n_calibration < t.min_calibration.max(1) && t.min_calibration >= t.reachable_from {
            return format!(
                "{} labelled combination(s) with a confidence, fewer than --min-calibration {}: label at least {} more, as a random sample",
                t.n_calibration,
                t.min_calibration,
                t.start.saturating_sub(t.n_calibration)
            );
        }
        let bound =
            crate::analytics::trust::clopper_pearson_upper(0, t.n_calibration, t.delta_each);
        return format!(
            "{} calibration pair(s) cannot reach α {}: even with no disagreement, m pairs bound the rate at 1 − δ^(1/m) ({:.4} with {}, at δ {}), so it takes {} pairs (ln δ / ln(1 − α)); label at least {} more, as a random sample, or raise --alpha or --delta",
            t.n_calibration,
            t.alpha,
            bound,
            t.n_calibration,
            fmt_level(t.delta_each),
            t.reachable_from,
            t.start.saturating_sub(t.n_calibration)
        );
    };
    let at_rate = match t.pairs_needed {
        Some(m) => format!(
            "; at that rate about {m} pairs at or above it would meet α (label more, as a random sample)"
        ),
        None => "; at that rate no number of labels would meet α".to_string(),
    };
    format!(
        "{} calibration pairs: its {} most confident (confidence ≥ {:.4}) disagree with people {} time(s), upper bound {:.4} > {}{at_rate}",
        t.n_calibration, f.n, f.threshold, f.disagreements, f.upper_bound, t.alpha
    )
}

/// A level as given (0.1, 0.0333…): four significant digits at most.
fn fmt_level(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "0" {
        format!("{x:.1e}")
    } else {
        s.to_string()
    }
}

fn pct(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Per classification, the one line to head a view with, about the
/// configuration the accuracy line names (`estimates`, chosen by
/// [`crate::report::estimate::chosen`]), else the one the user chose or the
/// ranking puts first among those with a confidence: its threshold, or why
/// none qualifies, or that it has no confidence.
pub fn headlines(
    ts: &[Trust],
    estimates: &[super::estimate::Estimate],
    choice: &super::headline::Choice,
) -> Vec<String> {
    let any_confidence: std::collections::BTreeSet<&str> = ts
        .iter()
        .filter(|t| t.n_judged > 0)
        .map(|t| t.classification.as_str())
        .collect();
    super::headline::trusts(ts, estimates, choice)
        .into_iter()
        .filter_map(|(c, named)| {
            Some(match named.trust {
                Some(t) => headline(t),
                // Only say so where some configuration has a confidence.
                None if !any_confidence.contains(c) => return None,
                None => format!(
                    "{c}: {} as {} has no confidence on its verdicts{}: no threshold (run it with --confidence logprobs)",
                    crate::sanitize::one_line(named.judge, 40),
                    crate::sanitize::one_line(named.persona, 20),
                    named.perspective.map_or(String::new(), |p| format!(
                        " (perspective {})",
                        crate::sanitize::one_line(p, 30)
                    ))
                ),
            })
        })
        .collect()
}

/// Per classification, the configuration whose threshold lets the most
/// verdicts stand without a person, else the one with the most calibration
/// pairs (only configurations whose verdicts carry a confidence). The views
/// do not choose this way (they trust the headline's configuration,
/// [`super::headline::trusts`]); it is the choice the δ/K calibration is
/// checked against in simulation, the one most driven by the data.
pub fn best_per_classification(ts: &[Trust]) -> BTreeMap<&str, &Trust> {
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
    best
}

/// One classification's line, for its trusted configuration.
fn headline(t: &Trust) -> String {
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
}

/// What `jury trust` says of the labels given in the active order (issue
/// #33): it calibrates without them, on labels a random sample can stand
/// for; weighing them by their draws is not shown to keep the guarantee.
pub fn active_left_out(n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "calibrated without the {n} label(s) given in the active order: the guarantee needs a random sample, and weighing active labels by their draw is not shown to keep it (jury estimate's active line uses them)"
        )
    })
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
        let (readings, none) = fixture();
        let t = thresholds(&readings, 0.2, 0.1, 10, None, &none);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].threshold, Some(LOWEST_PASSING));
        assert_eq!(t[0].n_judged, 50);
        assert_eq!(t[0].coverage, 35.0 / 50.0);
        let lines = headlines(&t, &[], &Default::default());
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("c: trust verdicts with confidence ≥ 0.50"),
            "{}",
            lines[0]
        );
    }

    /// The escalation queue holds the trusted configuration's verdicts that
    /// cannot stand (undecided, no confidence, below the threshold) on
    /// combinations no one labelled; another configuration's verdicts and
    /// labelled combinations are not in it.
    #[test]
    fn needs_a_person_is_the_trusted_judges_unlabelled_verdicts_that_cannot_stand() {
        let (mut readings, none) = fixture();
        let judge: Arc<str> = Arc::from("awag mode 2 · m");
        let other: Arc<str> = Arc::from("awag mode 3 · m");
        let persona: Arc<str> = Arc::from("p");
        let sure = |value, c| {
            Some(Confident {
                value,
                confidence: Confidence {
                    value: c,
                    source: ConfidenceSource::Logprobs,
                    expected_score: None,
                },
            })
        };
        let mut add = |judge: &Arc<str>, item: &str, value, confident| {
            let key = Arc::new(ComboKey::new(item, "c", "q"));
            readings
                .verdicts
                .push((judge.clone(), persona.clone(), key, value));
            readings.confidences.push(confident);
        };
        // The trusted judge: one below the threshold, one without a
        // confidence. Another judge, unsure, on a fresh item.
        add(&judge, "low", Value::Likert(5), sure(Value::Likert(5), 0.3));
        add(&judge, "unknown", Value::Likert(1), None);
        add(&other, "x", Value::Likert(5), sure(Value::Likert(5), 0.1));
        let t = thresholds(&readings, 0.2, 0.1, 10, None, &none);
        assert_eq!(t.len(), 2);
        let named = crate::report::headline::trusts(&t, &[], &Default::default());
        let queue = needs_a_person(&readings, &named);
        let items: Vec<&str> = queue.iter().map(|e| e.key.item_id.as_str()).collect();
        assert_eq!(items, ["i35", "i36", "i37", "i38", "i39", "low", "unknown"]);
        assert!(
            queue
                .iter()
                .all(|e| e.judge.as_deref() == Some(&*judge) && e.threshold == Some(LOWEST_PASSING))
        );
        assert_eq!(queue[5].confidence, Some(0.3));
        assert_eq!(queue[6].confidence, None);
        assert_eq!(queue[6].value, Some(Value::Likert(1)));
    }

    /// The grid point just above 0.5: the walk passes every candidate down
    /// to it and fails below, where the disagreements at 0.5 join.
    const LOWEST_PASSING: f64 = 2500.0 / 4999.0;

    /// 50 verdicts of one judge on classification `c`: 30 labelled,
    /// agreeing, at 0.9; 5 unlabelled Likert 5 and 5 unlabelled Likert 3,
    /// all at 0.95; 10 labelled, disagreeing, at 0.5.
    fn fixture() -> (Readings, Sampling) {
        let judge: Arc<str> = Arc::from("awag mode 2 · m");
        let persona: Arc<str> = Arc::from("p");
        let who: Arc<str> = Arc::from("alice");
        let mut readings = Readings {
            verdicts: Vec::new(),
            labels: Vec::new(),
            confidences: Vec::new(),
        };
        for i in 0..50 {
            let key = Arc::new(ComboKey::new(&format!("i{i}"), "c", "q"));
            let (value, conf) = match i {
                0..30 => (Value::Likert(5), 0.9),
                30..35 => (Value::Likert(5), 0.95),
                35..40 => (Value::Likert(3), 0.95),
                _ => (Value::Likert(1), 0.5),
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
            if !(30..40).contains(&i) {
                readings
                    .labels
                    .push((persona.clone(), key, who.clone(), Value::Likert(5)));
            }
        }
        let none = Sampling::default();
        (readings, none)
    }
}

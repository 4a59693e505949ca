//! How well people agree with each other, per classification: Fleiss' κ
//! and Krippendorff's α over every person who labelled it (missing labels
//! allowed), each pair of people beside them, and the warning given before
//! a judge is calibrated on labels people do not agree on.
//!
//! A unit is one combination (item, classification, perspective) under one
//! persona; its ratings are the labels people gave it, each person's own
//! (never an adjudicated or majority label: this measures the people). α
//! is ordinal on ordinal scales (Likert 1–5, the 0–9 score, degrees) and
//! nominal on AGREE/DISAGREE and true/false; Fleiss' κ is unweighted.

use super::pairs::LabelReading;
use crate::analytics::{self, AlphaMetric, SeveralRaters, UnitCounts};
use crate::domain::{Scale, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// The threshold on Krippendorff's α below which jury warns that people do
/// not agree enough to calibrate a judge on (config `min_human_agreement`):
/// Krippendorff (2004, §11.4) accepts α ≥ 0.667 only for tentative
/// conclusions and 0.8 for firm ones.
pub const DEFAULT_MIN_HUMAN_AGREEMENT: f64 = 0.667;

/// The α metric for labels on `scale`.
pub fn metric_for(scale: Scale) -> AlphaMetric {
    if scale.is_ordinal() {
        AlphaMetric::Ordinal
    } else {
        AlphaMetric::Nominal
    }
}

/// People's agreement on one classification (on one scale).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeopleAgreement {
    pub classification: String,
    pub scale: &'static str,
    /// Everyone who labelled it, sorted.
    pub people: Vec<String>,
    /// Fleiss' κ and Krippendorff's α over all of them.
    pub all: SeveralRaters,
    /// Each pair of people on the units both labelled.
    pub pairs: Vec<PersonPair>,
}

/// Two people on the units both labelled (two coders, no missing data).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersonPair {
    pub left: String,
    pub right: String,
    /// Units both labelled.
    pub n: usize,
    pub percent_agreement: Option<f64>,
    pub krippendorff_alpha: Option<f64>,
}

/// One classification's units, (persona, item, perspective), each with
/// its labels by person.
type Units<'a> = BTreeMap<(&'a str, &'a str, &'a str), BTreeMap<&'a str, Value>>;

/// Per classification and scale that two people or more labelled, sorted.
pub fn people_agreement(
    labels: &[LabelReading],
    resamples: usize,
    seed: u64,
) -> Vec<PeopleAgreement> {
    // classification, scale → unit (persona, item, perspective) → who → value.
    let mut by: BTreeMap<(&str, &str), Units<'_>> = BTreeMap::new();
    for (persona, key, who, value) in labels {
        by.entry((&key.classification_id, value.scale().as_str()))
            .or_default()
            .entry((persona, &key.item_id, &key.perspective_id))
            .or_default()
            .insert(who, *value);
    }
    by.into_iter()
        .filter_map(|((classification, _), units)| {
            let scale = units.values().flat_map(|u| u.values()).next()?.scale();
            let people: std::collections::BTreeSet<&str> =
                units.values().flat_map(|u| u.keys().copied()).collect();
            if people.len() < 2 {
                return None;
            }
            let k = scale.values().len();
            let metric = metric_for(scale);
            let rows: Vec<Vec<u8>> = units
                .values()
                .map(|u| u.values().map(|v| v.ordinal()).collect())
                .collect();
            let counts = UnitCounts::new(&rows, k).expect("positions come from the scale");
            let people: Vec<&str> = people.into_iter().collect();
            let mut pairs = Vec::new();
            for (i, a) in people.iter().enumerate() {
                for b in &people[i + 1..] {
                    let both: Vec<(u8, u8)> = units
                        .values()
                        .filter_map(|u| Some((u.get(a)?.ordinal(), u.get(b)?.ordinal())))
                        .collect();
                    pairs.push(PersonPair {
                        left: a.to_string(),
                        right: b.to_string(),
                        n: both.len(),
                        percent_agreement: analytics::percent_agreement(&both, k),
                        krippendorff_alpha: analytics::krippendorff_alpha(&both, k, metric),
                    });
                }
            }
            Some(PeopleAgreement {
                classification: classification.to_string(),
                scale: scale.as_str(),
                people: people.iter().map(|p| p.to_string()).collect(),
                all: SeveralRaters::compute(&counts, metric, resamples, seed),
                pairs,
            })
        })
        .collect()
}

/// Fleiss' κ and α over every person on `units` (each unit: the values its
/// people gave), on `scale`, or read as AGREE/DISAGREE when `mapped` (an
/// undecided Likert 3 then counts as missing): the human ceiling's figure.
pub fn all_raters(
    units: &[Vec<Value>],
    scale: Scale,
    mapped: bool,
    resamples: usize,
    seed: u64,
) -> SeveralRaters {
    let (k, metric) = if mapped {
        (2, AlphaMetric::Nominal)
    } else {
        (scale.values().len(), metric_for(scale))
    };
    let rows: Vec<Vec<u8>> = units
        .iter()
        .map(|u| {
            u.iter()
                .filter_map(|v| {
                    if mapped {
                        v.as_agreement().map(analytics::agreement_index)
                    } else {
                        (v.scale() == scale).then(|| v.ordinal())
                    }
                })
                .collect()
        })
        .collect();
    let counts = UnitCounts::new(&rows, k).expect("positions come from the scale");
    SeveralRaters::compute(&counts, metric, resamples, seed)
}

/// Fewer units than this say nothing either way: one or two shared items
/// (the sample data's alice and bob share one) would warn on noise.
pub const MIN_UNITS_TO_WARN: usize = 3;

/// One line per classification where people agree less than `min` (α over
/// all of them, or any pair's α, each on at least [`MIN_UNITS_TO_WARN`]
/// units), naming the pairs below it. Empty when every figure that is
/// defined on enough units reaches `min`.
pub fn low_agreement(people: &[PeopleAgreement], min: f64) -> Vec<String> {
    people
        .iter()
        .filter_map(|p| {
            let alpha = p.all.krippendorff_alpha.value;
            let low_pairs: Vec<&PersonPair> = p
                .pairs
                .iter()
                .filter(|q| q.n >= MIN_UNITS_TO_WARN)
                .filter(|q| q.krippendorff_alpha.is_some_and(|a| a < min))
                .collect();
            let alpha_low = p.all.pairable_units >= MIN_UNITS_TO_WARN && alpha.is_some_and(|a| a < min);
            if !alpha_low && low_pairs.is_empty() {
                return None;
            }
            let pairs = if low_pairs.is_empty() {
                "no pair below on its own".to_string()
            } else {
                let named: Vec<String> = low_pairs
                    .iter()
                    .map(|q| {
                        format!(
                            "{}–{} α {} on {} unit(s)",
                            q.left,
                            q.right,
                            fmt(q.krippendorff_alpha),
                            q.n
                        )
                    })
                    .collect();
                format!("pairs below: {}", named.join(", "))
            };
            Some(crate::sanitize::one_line(
                &format!(
                    "people agree less than min_human_agreement {min} on {} ({}): Krippendorff's α {} over {} unit(s) labelled by two or more of {} people; {pairs}. A judge calibrated on these labels is measured against people who do not agree with each other",
                    p.classification,
                    p.scale,
                    fmt(alpha),
                    p.all.pairable_units,
                    p.people.len(),
                ),
                1000,
            ))
        })
        .collect()
}

/// [`low_agreement`] straight from the labels, with no intervals: what
/// `jury estimate` and `jury trust` say before the estimates.
pub fn warnings(labels: &[LabelReading], min: f64) -> Vec<String> {
    low_agreement(&people_agreement(labels, 0, 0), min)
}

/// Writes [`warnings`] to stderr, one "jury: warning: ..." line each: the
/// figures on stdout stay as their format says.
pub fn warn(labels: &[LabelReading], min: f64) {
    for w in warnings(labels, min) {
        eprintln!("jury: warning: {w}");
    }
}

/// `text` broken at spaces into lines of at most `width` characters, the
/// first indented by `first` spaces and the rest by `rest` (a report table
/// fits 120 columns). A word longer than the width stays whole.
pub fn wrap(text: &str, width: usize, first: usize, rest: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = " ".repeat(first);
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::replace(&mut line, " ".repeat(rest)));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push(line);
    out
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.3}"))
}

/// The people's table, one block per classification (text and Markdown
/// carry it in a fenced block).
pub fn table(people: &[PeopleAgreement]) -> Vec<String> {
    if people.is_empty() {
        return Vec::new();
    }
    let mut out = vec![String::new()];
    out.extend(wrap("people's agreement with each other (all people per classification; Fleiss' κ unweighted, Krippendorff's α ordinal on ordinal scales, nominal otherwise; the human ceiling beside a judge is this α on the judge's combinations):", 118, 0, 2));
    for p in people {
        out.extend(wrap(&format!(
            "{} ({}): Fleiss κ {} · Krippendorff α ({}) {} · {} unit(s), {} with two or more labels · {} people: {}",
            crate::sanitize::one_line(&p.classification, 60),
            p.scale,
            super::figure_text(&p.all.fleiss_kappa),
            metric_name(p.all.metric),
            super::figure_text(&p.all.krippendorff_alpha),
            p.all.units,
            p.all.pairable_units,
            p.people.len(),
            p.people
                .iter()
                .map(|w| crate::sanitize::one_line(w, 30))
                .collect::<Vec<_>>()
                .join(", "),
        ), 118, 2, 6));
        for q in &p.pairs {
            out.extend(wrap(
                &format!(
                    "{} – {}: agree {} · α {} on {} unit(s)",
                    crate::sanitize::one_line(&q.left, 30),
                    crate::sanitize::one_line(&q.right, 30),
                    fmt(q.percent_agreement),
                    fmt(q.krippendorff_alpha),
                    q.n
                ),
                118,
                4,
                8,
            ));
        }
    }
    out
}

/// "ordinal", "nominal", "interval".
pub fn metric_name(m: AlphaMetric) -> &'static str {
    match m {
        AlphaMetric::Nominal => "nominal",
        AlphaMetric::Ordinal => "ordinal",
        AlphaMetric::Interval => "interval",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ComboKey;
    use std::sync::Arc;

    fn label(item: usize, who: &str, v: u8) -> LabelReading {
        (
            Arc::from("kenton"),
            Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
            Arc::from(who),
            Value::Likert(v),
        )
    }

    #[test]
    fn every_person_counts_and_pairs_are_named_below_the_threshold() {
        let mut labels = Vec::new();
        for i in 0..8 {
            let v = (i % 5) as u8 + 1;
            labels.push(label(i, "alice", v));
            if i % 3 != 0 {
                labels.push(label(i, "bob", v));
            }
            if i % 2 == 0 {
                labels.push(label(i, "carol", 6 - v));
            }
        }
        // Item 3 has alice alone (a unit with no pair). One person alone on
        // a classification: no team figure.
        labels.push((
            Arc::from("kenton"),
            Arc::new(ComboKey::new("i0", "work", "p")),
            Arc::from("alice"),
            Value::Likert(3),
        ));
        let p = people_agreement(&labels, 0, 1);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].people, ["alice", "bob", "carol"]);
        assert_eq!((p[0].all.units, p[0].all.pairable_units), (8, 7));
        assert_eq!(p[0].all.metric, AlphaMetric::Ordinal);
        let ab = &p[0].pairs[0];
        assert_eq!((ab.n, ab.krippendorff_alpha), (5, Some(1.0)));
        let lines = low_agreement(&p, 0.667);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("urgency (likert)"), "{}", lines[0]);
        assert!(lines[0].contains("alice–carol"), "{}", lines[0]);
        assert!(!lines[0].contains("alice–bob"), "{}", lines[0]);
        assert!(low_agreement(&p, -1.0).is_empty());
    }
}

#[cfg(test)]
mod wrap_tests {
    #[test]
    fn lines_fit_and_keep_their_indent() {
        let text = "one two three four five six seven";
        let lines = super::wrap(text, 12, 2, 4);
        assert_eq!(
            lines,
            [
                "  one two",
                "    three",
                "    four",
                "    five six",
                "    seven"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 12));
        assert_eq!(super::wrap("x", 10, 0, 0), ["x"]);
    }
}

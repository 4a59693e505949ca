//! `jury trust --cascade A,B[,C]`: per classification and perspective, the
//! judges named calibrated in order ([`crate::analytics::cascade`]): A on
//! every labelled combination, B on those A does not keep, and so on; each
//! judge's share of the judged combinations it keeps, the share left to
//! people, and how often the kept verdicts agree with people where people
//! labelled them.
//!
//! A combination is one (persona, item, classification, perspective), as
//! `jury trust` calibrates; people's reading is theirs as `jury estimate`
//! reads it (an adjudication, their majority, or one person with `--who`).
//! The judges are named as the report names them, or by a part of that
//! name which only one judge's name holds.

use super::estimate::{Sampling, reading, reference_reading};
use super::pairs::Readings;
use crate::analytics::cascade::{CascadeUnit, calibrate_cascade, keeper};
use crate::analytics::trust::trust_threshold;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One judge of a cascade, in one classification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// The judge as the report names it.
    pub judge: String,
    /// `None`: this judge keeps nothing (no threshold met the guarantee on
    /// what reached it, or it judged nothing here).
    pub threshold: Option<f64>,
    /// Share of the judged combinations this judge keeps.
    pub kept: f64,
    pub n_kept: usize,
    /// Calibration pairs that reached this judge (not kept before) and on
    /// which it had a decided verdict with a confidence.
    pub n_calibration: usize,
    /// Of those, at or above its threshold, and their disagreements with
    /// people; the Clopper–Pearson upper bound of that rate at δ/J.
    pub n_trusted: usize,
    pub disagreements: usize,
    pub upper_bound: Option<f64>,
    /// This judge alone (calibrated on every pair at δ): its threshold and
    /// the share of the judged combinations it would keep.
    pub alone: Alone,
}

/// A judge on its own, beside its place in the cascade.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alone {
    pub threshold: Option<f64>,
    pub kept: f64,
}

/// The cascade in one classification and perspective.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cascade {
    pub classification: String,
    pub perspective: String,
    pub alpha: f64,
    pub delta: f64,
    /// The level each judge is calibrated at: δ / the number of judges.
    pub delta_each: f64,
    pub min_calibration: usize,
    /// Combinations any judge of the cascade judged.
    pub n_judged: usize,
    /// Labelled combinations with people's decided reading.
    pub n_calibration: usize,
    pub stages: Vec<Stage>,
    /// Share of the judged combinations no judge keeps: they need a person.
    pub people: f64,
    pub n_people: usize,
    /// Of the labelled combinations some judge keeps: how many, and the
    /// share whose keeping judge agrees with people (`None`: none kept).
    pub n_kept_labelled: usize,
    pub agreement: Option<f64>,
}

/// `jury trust --cascade --format json`.
#[derive(Debug, Serialize)]
pub struct CascadeReport<'a> {
    pub judges: &'a [String],
    pub cascades: &'a [Cascade],
    /// The store's `jury run --cascade` runs and their records.
    pub runs: Vec<CascadeRun<'a>>,
}

/// One `jury run --cascade` as `jury trust --cascade` reads it back.
#[derive(Debug, Serialize)]
pub struct CascadeRun<'a> {
    pub run_id: i64,
    pub status: &'static str,
    pub record: &'a crate::domain::CascadeRecord,
}

/// The judges' names as the readings name them: each of `asked` is a full
/// name, or a part (case-insensitive) of exactly one. The error says which
/// names exist.
pub fn resolve_judges(readings: &Readings, asked: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(asked.len());
    for a in asked {
        let name = resolve_judge(readings, a)?;
        if out.contains(&name) {
            return Err(format!("--cascade: '{name}' is named twice"));
        }
        out.push(name);
    }
    if out.len() < 2 {
        return Err("--cascade needs two judges or more, in order: A,B[,C...]".into());
    }
    Ok(out)
}

/// One judge's name as the readings name it: `asked` in full, or a part
/// (case-insensitive) of exactly one name.
pub fn resolve_judge(readings: &Readings, asked: &str) -> Result<String, String> {
    let names: BTreeSet<&str> = readings.verdicts.iter().map(|v| &*v.0).collect();
    let quoted = |ns: &mut dyn Iterator<Item = &&str>| {
        ns.map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
    };
    let a = asked.trim();
    if names.contains(a) {
        return Ok(a.to_string());
    }
    let low = a.to_lowercase();
    let hits: Vec<&&str> = names
        .iter()
        .filter(|n| n.to_lowercase().contains(&low))
        .collect();
    match hits.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(format!(
            "--cascade: no judge is named '{a}' (judges: {})",
            quoted(&mut names.iter())
        )),
        many => Err(format!(
            "--cascade: '{a}' names several judges ({}); give more of the name",
            quoted(&mut many.iter().copied())
        )),
    }
}

/// Per classification and perspective: the cascade of `judges` (resolved
/// names, in order).
pub fn cascades(
    readings: &Readings,
    judges: &[String],
    alpha: f64,
    delta: f64,
    min_calibration: usize,
    who: Option<&str>,
    sampling: &Sampling,
) -> Vec<Cascade> {
    let labels = super::estimate::label_index(readings, sampling);
    let place = |judge: &str| judges.iter().position(|j| j == judge);
    // (classification, perspective) → (persona, combination) → per judge
    // its confidence, when its verdict is decided and has one.
    type Combo = (Arc<str>, Arc<crate::domain::ComboKey>);
    type Judged = BTreeMap<Combo, Vec<Option<(f64, bool)>>>;
    let mut groups: BTreeMap<(String, String), Judged> = BTreeMap::new();
    for ((judge, persona, key, _), confident) in readings.verdicts.iter().zip(&readings.confidences)
    {
        let Some(j) = place(judge) else { continue };
        let slot = groups
            .entry((key.classification_id.clone(), key.perspective_id.clone()))
            .or_default()
            .entry((persona.clone(), key.clone()))
            .or_insert_with(|| vec![None; judges.len()]);
        if let Some(c) = confident
            && let Some(r) = reading(&c.value)
        {
            slot[j] = Some((c.confidence.value, r));
        }
    }
    let mut out = Vec::new();
    for ((classification, perspective), combos) in groups {
        // Calibration units: labelled combinations with people's reading.
        let mut units: Vec<CascadeUnit> = Vec::new();
        for ((persona, key), per_judge) in &combos {
            let Some((ls, _, _)) = labels.get(&(&**persona, &**key)) else {
                continue;
            };
            if ls.is_empty() || !who.is_none_or(|w| ls.iter().any(|(p, _)| *p == w)) {
                continue;
            }
            let Ok((people, _)) = reference_reading(ls, who, sampling.adjudicated(persona, key))
            else {
                continue;
            };
            units.push(
                per_judge
                    .iter()
                    .map(|p| p.map(|(c, r)| (c, r == people)))
                    .collect(),
            );
        }
        let calibrated = calibrate_cascade(&units, judges.len(), alpha, delta, min_calibration);
        let thresholds: Vec<Option<f64>> = calibrated.iter().map(|t| t.threshold).collect();
        let confidences = |per_judge: &[Option<(f64, bool)>]| -> Vec<Option<f64>> {
            per_judge.iter().map(|p| p.map(|(c, _)| c)).collect()
        };
        let n = combos.len();
        let mut n_kept = vec![0usize; judges.len()];
        for per_judge in combos.values() {
            if let Some(j) = keeper(&confidences(per_judge), &thresholds) {
                n_kept[j] += 1;
            }
        }
        let (mut kept_labelled, mut agreeing) = (0usize, 0usize);
        for u in &units {
            let cs: Vec<Option<f64>> = u.iter().map(|p| p.map(|(c, _)| c)).collect();
            if let Some(j) = keeper(&cs, &thresholds) {
                kept_labelled += 1;
                agreeing += usize::from(u[j].is_some_and(|(_, agrees)| agrees));
            }
        }
        let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        let stages = judges
            .iter()
            .enumerate()
            .map(|(j, judge)| {
                let t = &calibrated[j];
                let pairs: Vec<(f64, bool)> = units.iter().filter_map(|u| u[j]).collect();
                let alone = trust_threshold(&pairs, alpha, delta, min_calibration).threshold;
                let alone_kept = alone.map_or(0, |l| {
                    combos
                        .values()
                        .filter(|p| p[j].is_some_and(|(c, _)| c >= l))
                        .count()
                });
                Stage {
                    judge: judge.clone(),
                    // A threshold that keeps nothing here keeps nothing.
                    threshold: t.threshold.filter(|_| n_kept[j] > 0),
                    kept: share(n_kept[j]),
                    n_kept: n_kept[j],
                    n_calibration: reached(&units, &thresholds, j),
                    n_trusted: t.n_trusted,
                    disagreements: t.disagreements,
                    upper_bound: t.upper_bound,
                    alone: Alone {
                        threshold: alone,
                        kept: share(alone_kept),
                    },
                }
            })
            .collect();
        let n_people = n - n_kept.iter().sum::<usize>();
        out.push(Cascade {
            classification,
            perspective,
            alpha,
            delta,
            delta_each: delta / judges.len() as f64,
            min_calibration,
            n_judged: n,
            n_calibration: units.len(),
            stages,
            people: share(n_people),
            n_people,
            n_kept_labelled: kept_labelled,
            agreement: (kept_labelled > 0).then(|| agreeing as f64 / kept_labelled as f64),
        });
    }
    out
}

/// Calibration pairs that reached judge `j` (no judge before it kept
/// them) and on which it has a decided verdict with a confidence.
fn reached(units: &[CascadeUnit], thresholds: &[Option<f64>], j: usize) -> usize {
    units
        .iter()
        .filter(|u| u[j].is_some())
        .filter(|u| {
            let cs: Vec<Option<f64>> = u[..j].iter().map(|p| p.map(|(c, _)| c)).collect();
            keeper(&cs, &thresholds[..j]).is_none()
        })
        .count()
}

/// The cascades as text, one block per classification and perspective.
pub fn table(cs: &[Cascade]) -> String {
    let Some(first) = cs.first() else {
        return "no verdict of these judges has a confidence".to_string();
    };
    let pct = |x: f64| format!("{:.1} %", 100.0 * x);
    let mut out = format!(
        "The judges in order: each keeps the verdicts at or above its threshold among those the judges before it \
         did not keep; together the kept verdicts agree with people at a rate of at least {} with probability at \
         least {} (each judge calibrated at δ/{} = {:.4}; valid only if the labelled combinations are a random \
         sample of the judged ones). The rest need a person.\n",
        pct(1.0 - first.alpha),
        pct(1.0 - first.delta),
        first.stages.len(),
        first.delta_each
    );
    for c in cs {
        out.push_str(&format!(
            "\n{} · {} ({} judged, {} labelled)\n",
            crate::sanitize::one_line(&c.classification, 80),
            crate::sanitize::one_line(&c.perspective, 80),
            c.n_judged,
            c.n_calibration
        ));
        for (i, s) in c.stages.iter().enumerate() {
            let threshold = s
                .threshold
                .map_or("keeps nothing".to_string(), |t| format!("threshold {t:.4}"));
            let alone = match s.alone.threshold {
                Some(t) => format!("alone: threshold {t:.4}, keeps {}", pct(s.alone.kept)),
                None => "alone: keeps nothing".to_string(),
            };
            out.push_str(&format!(
                "  {}. {:<40} {:<18} keeps {:>7}  ({} of {} calibration pairs that reached it, {} disagree; {alone})\n",
                i + 1,
                crate::sanitize::one_line(&s.judge, 40),
                threshold,
                pct(s.kept),
                s.n_trusted,
                s.n_calibration,
                s.disagreements
            ));
        }
        out.push_str(&format!(
            "     {:<40} {:<18} {:>13}\n",
            "people",
            "",
            pct(c.people)
        ));
        match c.agreement {
            Some(a) => out.push_str(&format!(
                "  kept verdicts agree with people on {} of the {} labelled combinations they cover\n",
                pct(a),
                c.n_kept_labelled
            )),
            None => out.push_str("  no labelled combination is kept\n"),
        }
    }
    out.trim_end().to_string()
}

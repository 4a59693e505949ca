//! `jury run --cascade A,B[,C]` between its stages: which combinations of
//! the run's scope the stages judged so far keep, by `jury trust
//! --cascade`'s calibration ([`super::cascade::cascades`]: per
//! classification and perspective, each judge calibrated at δ/J on what the
//! judges before it did not keep). Stage j's threshold rests only on the
//! verdicts of stages 0..=j, so it is final once stage j has judged: the
//! next stage is asked about the rest only, and a run taken up again
//! computes the same split from the same store.

use super::cascade::cascades;
use super::estimate::{Sampling, reading, reference_reading};
use super::pairs::Readings;
use crate::analytics::cascade::keeper;
use crate::domain::{ComboKey, Mode, Protocol, StageThreshold};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What the stages judged so far keep of the scope.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// Per stage judged so far: its thresholds and how many combinations
    /// of the scope it keeps.
    pub stages: Vec<(Vec<StageThreshold>, u64)>,
    /// The scope's combinations some stage keeps: never asked again.
    pub keys: HashSet<ComboKey>,
}

/// The calibration's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    pub alpha: f64,
    pub delta: f64,
    pub min_calibration: usize,
}

impl Levels {
    /// Labelled combinations the first stage needs at least: `--min-calibration`,
    /// and no fewer than α can be met with at δ/J at all.
    pub fn labels_needed(&self, stages: usize) -> usize {
        let each = self.delta / stages.max(1) as f64;
        self.min_calibration
            .max(crate::analytics::trust::reachable_from(self.alpha, each))
    }
}

/// Per classification and perspective of the scope, its combinations (of
/// `persona`) with people's decided reading: what the first stage can be
/// calibrated on there (each is calibrated on its own).
pub fn labelled_in_scope(
    readings: &Readings,
    sampling: &Sampling,
    persona: &str,
    scope: &HashSet<ComboKey>,
) -> BTreeMap<(String, String), usize> {
    let labels = super::estimate::label_index(readings, sampling);
    let mut out: BTreeMap<(String, String), usize> = BTreeMap::new();
    for key in scope {
        let n = out
            .entry((key.classification_id.clone(), key.perspective_id.clone()))
            .or_default();
        let decided = labels.get(&(persona, key)).is_some_and(|(ls, _, _)| {
            !ls.is_empty()
                && reference_reading(ls, None, sampling.adjudicated(persona, key)).is_ok()
        });
        *n += usize::from(decided);
    }
    out
}

/// The report's name for a judge of this protocol, mode and model asked
/// with this prompt set, as the readings hold it (with the prompt set's
/// hash when the model has several); `None` before it has a verdict.
pub fn judge_in(
    readings: &Readings,
    protocol: Protocol,
    mode: Option<Mode>,
    model: &str,
    prompt_hash: &str,
) -> Option<String> {
    let base = crate::domain::judge_name(protocol, mode, model);
    let versioned = format!(
        "{base} · prompts {}",
        prompt_hash.chars().take(8).collect::<String>()
    );
    readings
        .verdicts
        .iter()
        .map(|v| &*v.0)
        .find(|n| *n == base || *n == versioned)
        .map(str::to_string)
}

/// The stages' names for [`cascades`]: a stage without verdicts is named
/// so that no verdict matches it.
pub fn stage_names(names: &[Option<String>]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(j, n)| n.clone().unwrap_or_else(|| format!("\u{0}stage {j}")))
        .collect()
}

/// After stages `0..=upto` have judged: their thresholds and what they keep
/// of `scope` (of `persona`). `names` has one entry per stage of the whole
/// cascade (`None`: no verdict yet), so each is calibrated at δ/J.
pub fn kept_through(
    readings: &Readings,
    names: &[Option<String>],
    upto: usize,
    levels: Levels,
    sampling: &Sampling,
    persona: &str,
    scope: &HashSet<ComboKey>,
) -> Kept {
    let judges = stage_names(names);
    let calibrated = cascades(
        readings,
        &judges,
        levels.alpha,
        levels.delta,
        levels.min_calibration,
        None,
        sampling,
    );
    let thresholds: BTreeMap<(&str, &str), Vec<Option<f64>>> = calibrated
        .iter()
        .map(|c| {
            (
                (c.classification.as_str(), c.perspective.as_str()),
                c.stages.iter().map(|s| s.threshold).collect(),
            )
        })
        .collect();
    // Per combination of the scope: each stage's confidence on it, where
    // its verdict is decided and has one.
    let place: HashMap<&str, usize> = judges[..=upto]
        .iter()
        .enumerate()
        .map(|(j, n)| (n.as_str(), j))
        .collect();
    let mut confident: HashMap<&ComboKey, Vec<Option<f64>>> = HashMap::new();
    for ((judge, p, key, _), c) in readings.verdicts.iter().zip(&readings.confidences) {
        let Some(&j) = place.get(&**judge) else {
            continue;
        };
        if &**p != persona || !scope.contains(&**key) {
            continue;
        }
        if let Some(c) = c
            && reading(&c.value).is_some()
        {
            confident.entry(key).or_insert_with(|| vec![None; upto + 1])[j] =
                Some(c.confidence.value);
        }
    }
    let mut kept = Kept {
        stages: (0..=upto)
            .map(|j| {
                let ts = calibrated
                    .iter()
                    .map(|c| StageThreshold {
                        classification: c.classification.clone(),
                        perspective: c.perspective.clone(),
                        threshold: c.stages[j].threshold,
                    })
                    .collect();
                (ts, 0)
            })
            .collect(),
        keys: HashSet::new(),
    };
    for (key, cs) in confident {
        let Some(ts) =
            thresholds.get(&(key.classification_id.as_str(), key.perspective_id.as_str()))
        else {
            continue;
        };
        if let Some(j) = keeper(&cs, &ts[..=upto]) {
            kept.stages[j].1 += 1;
            kept.keys.insert(key.clone());
        }
    }
    kept
}

/// A cascade run's record as text: per stage what it was asked, what it
/// cost and what it kept; then what is left to people.
pub fn record_table(run_id: i64, r: &crate::domain::CascadeRecord, status: Option<&str>) -> String {
    let status = status.map_or(String::new(), |s| format!(" ({s})"));
    let mut out = format!(
        "cascade run {run_id}{status}: {} combinations; kept verdicts agree with people at ≥ {:.0} % with probability ≥ {:.0} % (each stage at δ/{})\n",
        r.combinations,
        100.0 * (1.0 - r.alpha),
        100.0 * (1.0 - r.delta),
        r.stages.len()
    );
    for (i, s) in r.stages.iter().enumerate() {
        let cost = s
            .cost_usd
            .map_or("no price known".to_string(), |c| format!("${c:.4}"));
        let kept = s
            .kept
            .map_or("not calibrated".to_string(), |k| format!("kept {k}"));
        let thresholds: Vec<String> = s
            .thresholds
            .iter()
            .map(|t| {
                format!(
                    "{}·{} {}",
                    crate::sanitize::one_line(&t.classification, 30),
                    crate::sanitize::one_line(&t.perspective, 30),
                    t.threshold
                        .map_or("keeps nothing".into(), |x| format!("≥ {x:.4}"))
                )
            })
            .collect();
        out.push_str(&format!(
            "  {}. {:<32} judged {:>6} · reused {:>6} · kept before it {:>6} · {} requests, {} tokens{}, {cost} · {kept}{}\n",
            i + 1,
            crate::sanitize::one_line(&s.given, 32),
            s.judged,
            s.reused,
            s.kept_before,
            s.requests,
            s.prompt_tokens + s.completion_tokens,
            if s.usage_unknown > 0 {
                format!(" ({} with usage unknown)", s.usage_unknown)
            } else {
                String::new()
            },
            if thresholds.is_empty() {
                String::new()
            } else {
                format!(" ({})", thresholds.join(", "))
            }
        ));
    }
    match r.people {
        Some(p) => out.push_str(&format!("  people: {p} combination(s) no judge keeps\n")),
        None => out.push_str("  people: not known yet (the cascade did not finish)\n"),
    }
    out.trim_end().to_string()
}

/// Every cascade run's record as text (`jury trust --cascade`, `jury
/// report`); `None` when the store has none.
pub fn cascade_runs_text(store: &crate::store::Store) -> crate::store::Result<Option<String>> {
    let runs = store.cascade_runs()?;
    if runs.is_empty() {
        return Ok(None);
    }
    let blocks: Vec<String> = runs
        .iter()
        .map(|(run, r)| record_table(run.id, r, Some(run.status.as_str())))
        .collect();
    Ok(Some(blocks.join("\n\n")))
}

//! Position bias (docs/design.md §7): does a verdict depend on where its item stood in
//! a multi-item request? Mode 1 puts K items in one request; repeating a run
//! with `--shuffle-seed` moves each item elsewhere. Two readings per judge:
//!
//! * the mean score of the first, middle and last third of the requests, over
//!   every placed verdict (a drift from first to last shows up here), and
//! * within the combinations judged at more than one place: the score at the
//!   latest place minus the score at the earliest, averaged, with a seeded
//!   bootstrap 95 % interval. An interval that excludes 0 says the verdict
//!   moves with its position; the share of combinations whose value changed
//!   says how often.
//!
//! Scores are read "higher is more favourable to the classifier": Likert and
//! 0–9 as they are, AGREE / true = 1 and DISAGREE / false = 0, degree
//! no / partially / fully = 0 / 1 / 2.

use super::pairs::PositionSeries;
use crate::analytics::{DEFAULT_RESAMPLES, Xoshiro256pp, multinomial, percentile_interval};
use crate::domain::{Agreement, Value};
use serde::Serialize;

/// The mean score of the verdicts in one third of the requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Third {
    /// "first", "middle" or "last".
    pub part: &'static str,
    pub n: u64,
    pub mean_score: Option<f64>,
}

/// Position-bias figures for one judge configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionBias {
    /// e.g. "awag mode 1 · gpt-4o-mini".
    pub judge: String,
    /// Verdicts whose item shared its request with others.
    pub placed_verdicts: u64,
    pub by_third: [Third; 3],
    /// Combinations judged at two or more different places.
    pub moved_combinations: u64,
    /// Of those, how many got a different value at the latest place than at the earliest.
    pub changed: u64,
    pub changed_share: Option<f64>,
    /// Mean of (score at the latest place − score at the earliest).
    pub mean_shift_late_minus_early: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    /// The interval excludes 0 (None: too few moved combinations to say).
    pub depends_on_position: Option<bool>,
}

/// A value as a number, higher meaning "more in favour of the classifier".
pub fn score(v: Value) -> f64 {
    match v {
        Value::Likert(n) | Value::Score(n) => f64::from(n),
        Value::Agreement(a) => f64::from(u8::from(a == Agreement::Agree)),
        Value::Bool(b) => f64::from(u8::from(b)),
        Value::Degree(d) => f64::from(d as u8),
    }
}

/// Fewest moved combinations for a verdict on dependence.
const MIN_MOVED: usize = 5;

/// The figures per judge, in the series' order (`resamples: None` means
/// [`DEFAULT_RESAMPLES`]; the interval costs the same whatever n is).
pub fn position_bias(
    series: &[PositionSeries],
    resamples: Option<usize>,
    seed: u64,
) -> Vec<PositionBias> {
    let r = resamples.unwrap_or(DEFAULT_RESAMPLES);
    series.iter().map(|s| one_judge(s, r, seed)).collect()
}

fn one_judge(s: &PositionSeries, resamples: usize, seed: u64) -> PositionBias {
    let mut sums = [(0u64, 0.0f64); 3];
    for &(rel, v) in &s.placed {
        let third = if rel < 1.0 / 3.0 {
            0
        } else if rel <= 2.0 / 3.0 {
            1
        } else {
            2
        };
        sums[third].0 += 1;
        sums[third].1 += score(v);
    }
    let third = |i: usize, part| Third {
        part,
        n: sums[i].0,
        mean_score: (sums[i].0 > 0).then(|| sums[i].1 / sums[i].0 as f64),
    };
    let mut shifts = Vec::with_capacity(s.repeats.len());
    let mut changed = 0u64;
    for placed in &s.repeats {
        // The first verdict at the earliest place and the last at the latest.
        let early = placed.iter().min_by(|a, b| a.0.total_cmp(&b.0));
        let late = placed.iter().rev().max_by(|a, b| a.0.total_cmp(&b.0));
        if let (Some(e), Some(l)) = (early, late) {
            shifts.push(score(l.1) - score(e.1));
            changed += u64::from(l.1 != e.1);
        }
    }
    let n = shifts.len();
    let mean = (n > 0).then(|| shifts.iter().sum::<f64>() / n as f64);
    let raw = mean_interval(&shifts, resamples, seed);
    // Shown by the interval rules of every other figure: none below 30
    // moved combinations or when every resample gave the same mean. (Twenty
    // items that all dropped 3 points still answer "does it depend?".)
    let varies = shifts.iter().any(|&x| x != shifts[0]);
    let ci95 = crate::analytics::bootstrap_rule(n, varies, resamples, raw)
        .ok()
        .flatten();
    let depends = match raw {
        Some([lo, hi]) if n >= MIN_MOVED => Some(lo > 0.0 || hi < 0.0),
        _ => None,
    };
    PositionBias {
        judge: s.judge.to_string(),
        placed_verdicts: s.placed.len() as u64,
        by_third: [third(0, "first"), third(1, "middle"), third(2, "last")],
        moved_combinations: n as u64,
        changed,
        changed_share: (n > 0).then(|| changed as f64 / n as f64),
        mean_shift_late_minus_early: mean,
        ci95,
        depends_on_position: depends,
    }
}

/// Seeded percentile bootstrap of the mean. Shifts are whole numbers (scores
/// are), so a resample is one multinomial draw over the distinct shifts —
/// the same distribution as drawing n shifts, at a cost independent of n.
fn mean_interval(xs: &[f64], resamples: usize, seed: u64) -> Option<[f64; 2]> {
    let n = xs.len() as u64;
    if n == 0 || resamples == 0 {
        return None;
    }
    let mut counts: std::collections::BTreeMap<i64, u64> = Default::default();
    for x in xs {
        *counts.entry(x.round() as i64).or_default() += 1;
    }
    let values: Vec<f64> = counts.keys().map(|&v| v as f64).collect();
    let weights: Vec<u64> = counts.into_values().collect();
    let mut drawn = vec![0u64; weights.len()];
    let mut means: Vec<f64> = (0..resamples)
        .map(|r| {
            let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
            multinomial(&mut rng, n, &weights, &mut drawn);
            let sum: f64 = drawn.iter().zip(&values).map(|(&c, v)| c as f64 * v).sum();
            sum / n as f64
        })
        .collect();
    percentile_interval(&mut means).map(|(lo, hi)| [lo, hi])
}

/// The figures as table lines (empty when no judge placed items together).
pub fn table(rows: &[PositionBias]) -> Vec<String> {
    if rows.is_empty() {
        return Vec::new();
    }
    let mean = |t: &Third| match t.mean_score {
        Some(m) => format!("{m:.2} (n {})", t.n),
        None => "–".into(),
    };
    // A judge per heading line, its figures under it: fits 120 columns.
    let mut out = vec![
        String::new(),
        "position bias: mean score by where the item stood in its request".into(),
    ];
    for r in rows {
        let shift = match (r.mean_shift_late_minus_early, r.ci95) {
            (Some(m), Some([lo, hi])) => format!("{m:+.2} [{lo:+.2},{hi:+.2}]"),
            (Some(m), None) if r.moved_combinations < 30 => format!("{m:+.2} (n<30)"),
            (Some(m), None) => format!("{m:+.2} (no spread)"),
            _ => "– (no item moved)".into(),
        };
        let changed = match r.changed_share {
            Some(s) => format!("{s:.2} ({}/{})", r.changed, r.moved_combinations),
            None => "–".into(),
        };
        out.push(format!("  {}", crate::sanitize::one_line(&r.judge, 110)));
        out.push(format!(
            "     first third {}  middle {}  last {}",
            mean(&r.by_third[0]),
            mean(&r.by_third[1]),
            mean(&r.by_third[2])
        ));
        out.push(format!("     late − early {shift}  changed {changed}"));
    }
    // Two lines, not one with a newline in it: the agreement view shows
    // each note on a line of its own.
    out.push(
        "repeat a mode 1 run with other --shuffle-seed values to move items; an interval that"
            .into(),
    );
    out.push("excludes 0 means the verdict depends on where the item stood.".into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn series(repeats: Vec<Vec<(f32, Value)>>) -> PositionSeries {
        PositionSeries {
            judge: Arc::from("awag mode 1 · m"),
            placed: repeats.iter().flatten().copied().collect(),
            repeats,
        }
    }

    #[test]
    fn a_judge_that_favours_the_first_item_is_caught() {
        let repeats: Vec<_> = (0..20)
            .map(|_| vec![(0.0, Value::Likert(5)), (1.0, Value::Likert(2))])
            .collect();
        let r = &position_bias(&[series(repeats)], Some(500), 1)[0];
        assert_eq!(r.moved_combinations, 20);
        assert_eq!(r.changed, 20);
        assert_eq!(r.mean_shift_late_minus_early, Some(-3.0));
        // Every resample gives −3: no point interval is shown.
        assert_eq!(r.ci95, None);
        assert_eq!(r.depends_on_position, Some(true));
        assert_eq!(r.by_third[0].mean_score, Some(5.0));
        assert_eq!(r.by_third[1].n, 0);
        assert_eq!(r.by_third[2].mean_score, Some(2.0));
    }

    #[test]
    fn a_steady_judge_shows_no_dependence() {
        let repeats: Vec<_> = (0..20)
            .map(|i| {
                let v = Value::Likert(1 + (i % 5) as u8);
                vec![(0.25, v), (0.75, v)]
            })
            .collect();
        let r = &position_bias(&[series(repeats)], Some(500), 1)[0];
        assert_eq!(r.changed_share, Some(0.0));
        assert_eq!(r.mean_shift_late_minus_early, Some(0.0));
        assert_eq!(r.depends_on_position, Some(false));
    }

    #[test]
    fn noise_in_both_directions_is_not_dependence() {
        // Half the moved combinations go up by one, half down by one.
        let repeats: Vec<_> = (0..40)
            .map(|i| {
                let (a, b) = if i % 2 == 0 { (3, 4) } else { (4, 3) };
                vec![(0.0, Value::Likert(a)), (1.0, Value::Likert(b))]
            })
            .collect();
        let r = &position_bias(&[series(repeats)], Some(1000), 3)[0];
        assert_eq!(r.mean_shift_late_minus_early, Some(0.0));
        let [lo, hi] = r.ci95.unwrap();
        assert!(lo < 0.0 && hi > 0.0, "{lo} {hi}");
        assert_eq!(r.depends_on_position, Some(false));
    }

    #[test]
    fn too_few_or_no_moves_give_no_verdict_and_no_nan() {
        let few = series(vec![vec![(0.0, Value::Likert(5)), (1.0, Value::Likert(1))]]);
        let r = &position_bias(&[few], Some(200), 1)[0];
        assert_eq!(r.depends_on_position, None);
        let none = PositionSeries {
            judge: Arc::from("j"),
            placed: vec![(0.5, Value::Agreement(Agreement::Agree))],
            repeats: vec![],
        };
        let r = &position_bias(&[none], None, 1)[0];
        assert_eq!(r.moved_combinations, 0);
        assert_eq!(r.mean_shift_late_minus_early, None);
        assert_eq!(r.ci95, None);
        assert_eq!(r.changed_share, None);
        assert_eq!(r.by_third[1].mean_score, Some(1.0));
        assert!(serde_json::to_string(r).is_ok());
    }

    #[test]
    fn scores_read_higher_as_more_favourable() {
        assert_eq!(score(Value::Likert(4)), 4.0);
        assert_eq!(score(Value::Agreement(Agreement::Agree)), 1.0);
        assert_eq!(score(Value::Agreement(Agreement::Disagree)), 0.0);
        assert_eq!(score(Value::Bool(true)), 1.0);
        assert_eq!(score(Value::Score(9)), 9.0);
    }
}

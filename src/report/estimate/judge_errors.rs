//! A judge's errors in the user's terms (docs/design.md §7.10): how often it
//! calls right what people call right (its true-positive rate, q1) and wrong
//! what people call wrong (its true-negative rate, q0), each with an exact
//! (Clopper–Pearson) lower bound; the classifier's rate corrected for those
//! errors (Rogan & Gladen 1978: θ = (p + q0 − 1)/(q0 + q1 − 1), p the share
//! the judge calls right over every combination), with a percentile
//! bootstrap over the labelled and the unlabelled sets; and the most
//! prediction-powered inference can save, 1/(1 − ρ²) (Dorner, Nowak &
//! Hardt, ICLR 2025), ρ the correlation of judge and people on the labels.
//!
//! Readings are 0 (wrong), 1 (right) or a fraction (an undecided reading
//! read as a share): a rate counts each reading's share.

use crate::analytics::Xoshiro256pp;
use serde::Serialize;

/// Resamples of the corrected rate's bootstrap.
pub const RESAMPLES: usize = 4000;

/// Said when q0 + q1 ≤ 1: no correction exists.
pub const NO_BETTER_THAN_CHANCE: &str = "the judge's true-positive and true-negative rates add up to at most 1: it is no better than chance against people, so its verdicts cannot be corrected";

/// One configuration's errors against people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeErrors {
    /// Labelled combinations people read right, and the judge's rate of
    /// calling them right (its sensitivity), with a one-sided exact lower
    /// bound at level 1 − α.
    pub people_right: usize,
    pub true_positive_rate: Option<f64>,
    pub true_positive_lower: Option<f64>,
    /// The same for combinations people read wrong (its specificity).
    pub people_wrong: usize,
    pub true_negative_rate: Option<f64>,
    pub true_negative_lower: Option<f64>,
    /// The share of all combinations (labelled and not) the judge calls right.
    pub judge_rate: Option<f64>,
    /// The Rogan–Gladen corrected rate, clipped to [0, 1], and its
    /// percentile bootstrap interval at level 1 − α.
    pub corrected: Option<f64>,
    pub corrected_ci: Option<[f64; 2]>,
    /// Why there is no corrected rate (or no interval), when there is none.
    pub corrected_not: Option<&'static str>,
    /// Pearson correlation of the judge's and people's readings on the
    /// labelled combinations, and 1/(1 − ρ²): the most labels' worth PPI can
    /// reach per label (`None` when a side never varies).
    pub rho: Option<f64>,
    pub most_worth_labels: Option<f64>,
}

/// Exact one-sided lower bound of a rate of `k` in `n` at level 1 − α.
fn cp_lower(k: f64, n: usize, alpha: f64) -> Option<f64> {
    if n == 0 {
        return None;
    }
    // Fractional successes (undecided readings): the whole ones count.
    let k = k.floor();
    if k <= 0.0 {
        return Some(0.0);
    }
    Some(crate::analytics::trust::beta_ppf(
        alpha,
        k,
        n as f64 - k + 1.0,
    ))
}

/// (q1, q0, counts): the true-positive and -negative rates from labelled
/// (people, judge) readings; people's reading ≥ 0.5 is right.
fn rates(y: &[f64], y_hat: &[f64]) -> (Option<f64>, Option<f64>, [usize; 2], [f64; 2]) {
    let (mut n1, mut n0, mut tp, mut tn) = (0usize, 0usize, 0.0, 0.0);
    for (&p, &j) in y.iter().zip(y_hat) {
        if p >= 0.5 {
            n1 += 1;
            tp += j;
        } else {
            n0 += 1;
            tn += 1.0 - j;
        }
    }
    let q1 = (n1 > 0).then(|| tp / n1 as f64);
    let q0 = (n0 > 0).then(|| tn / n0 as f64);
    (q1, q0, [n1, n0], [tp, tn])
}

/// The corrected rate, or why none: (p + q0 − 1)/(q0 + q1 − 1) in [0, 1].
pub fn rogan_gladen(p: f64, q1: f64, q0: f64) -> Option<f64> {
    let d = q0 + q1 - 1.0;
    (d > 0.0).then(|| ((p + q0 - 1.0) / d).clamp(0.0, 1.0))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Distinct values (or pairs) and how often each occurs: what a resample
/// draws from as one multinomial, whatever the set's size.
fn cells<T: PartialEq + Copy>(values: impl Iterator<Item = T>) -> (Vec<T>, Vec<u64>) {
    let (mut kinds, mut counts): (Vec<T>, Vec<u64>) = (Vec::new(), Vec::new());
    for v in values {
        match kinds.iter().position(|k| *k == v) {
            Some(i) => counts[i] += 1,
            None => {
                kinds.push(v);
                counts.push(1);
            }
        }
    }
    (kinds, counts)
}

/// The errors of one configuration: `y` and `y_hat` people's and the
/// judge's readings on the labelled combinations, `y_hat_u` the judge's on
/// the others; the bootstrap is seeded (`seed`).
pub fn judge_errors(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    alpha: f64,
    seed: u64,
) -> JudgeErrors {
    let (q1, q0, [n1, n0], [tp, tn]) = rates(y, y_hat);
    let all = y_hat.len() + y_hat_u.len();
    let p =
        (all > 0).then(|| (y_hat.iter().sum::<f64>() + y_hat_u.iter().sum::<f64>()) / all as f64);
    let rho = pearson(y, y_hat);
    let (corrected, corrected_not) = match (p, q1, q0) {
        (Some(p), Some(q1), Some(q0)) => match rogan_gladen(p, q1, q0) {
            Some(t) => (Some(t), None),
            None => (None, Some(NO_BETTER_THAN_CHANCE)),
        },
        _ => (
            None,
            Some(
                "people's labels need both a right and a wrong reading to measure the judge's errors",
            ),
        ),
    };
    let corrected_ci = corrected.and_then(|_| bootstrap(y, y_hat, y_hat_u, alpha, seed));
    JudgeErrors {
        people_right: n1,
        true_positive_rate: q1,
        true_positive_lower: cp_lower(tp, n1, alpha),
        people_wrong: n0,
        true_negative_rate: q0,
        true_negative_lower: cp_lower(tn, n0, alpha),
        judge_rate: p,
        corrected,
        corrected_ci,
        corrected_not: if corrected.is_some() && corrected_ci.is_none() {
            Some("too few labels of each reading for a bootstrap interval")
        } else {
            corrected_not
        },
        rho,
        most_worth_labels: rho.map(|r| 1.0 / (1.0 - r * r)).filter(|w| w.is_finite()),
    }
}

/// Percentile bootstrap of the corrected rate: the labelled pairs and the
/// unlabelled readings each resampled with replacement (one multinomial
/// over their distinct values); a resample without a right or a wrong
/// reading of people's, or whose judge is no better than chance, has no
/// rate and is left out (as `judgy` does). `None` when fewer than half the
/// resamples have one.
fn bootstrap(y: &[f64], y_hat: &[f64], y_hat_u: &[f64], alpha: f64, seed: u64) -> Option<[f64; 2]> {
    let (pairs, pair_counts) = cells(y.iter().copied().zip(y_hat.iter().copied()));
    let (unl, unl_counts) = cells(y_hat_u.iter().copied());
    let mut rng = Xoshiro256pp::seed_from_u64(seed);
    let mut drawn_pairs = vec![0u64; pairs.len()];
    let mut drawn_unl = vec![0u64; unl.len()];
    let mut thetas = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        crate::analytics::multinomial(&mut rng, y.len() as u64, &pair_counts, &mut drawn_pairs);
        let (mut n1, mut n0, mut tp, mut tn, mut judged) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (&(p, j), &c) in pairs.iter().zip(&drawn_pairs) {
            let c = c as f64;
            if p >= 0.5 {
                n1 += c;
                tp += c * j;
            } else {
                n0 += c;
                tn += c * (1.0 - j);
            }
            judged += c * j;
        }
        if !unl.is_empty() {
            crate::analytics::multinomial(
                &mut rng,
                y_hat_u.len() as u64,
                &unl_counts,
                &mut drawn_unl,
            );
            for (&j, &c) in unl.iter().zip(&drawn_unl) {
                judged += c as f64 * j;
            }
        }
        if n1 == 0.0 || n0 == 0.0 {
            continue;
        }
        let p = judged / (y.len() + y_hat_u.len()) as f64;
        if let Some(t) = rogan_gladen(p, tp / n1, tn / n0) {
            thetas.push(t);
        }
    }
    if thetas.len() < RESAMPLES / 2 {
        return None;
    }
    thetas.sort_by(f64::total_cmp);
    let at = |q: f64| {
        // numpy's default (linear) percentile.
        let h = (thetas.len() - 1) as f64 * q;
        let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
        thetas[lo] + (h - lo as f64) * (thetas[hi] - thetas[lo])
    };
    Some([at(alpha / 2.0), at(1.0 - alpha / 2.0)])
}

/// One line: "judge calls right 0.91 of what people call right (≥ 0.84)
/// and wrong 0.62 of what they call wrong (≥ 0.45) · corrected 0.71 [0.64,
/// 0.79] (Rogan–Gladen) · PPI saves at most 1.8× the labels (ρ 0.66)".
pub fn line(e: &JudgeErrors) -> String {
    let rate = |r: Option<f64>, lo: Option<f64>, n: usize| match (r, lo) {
        (Some(r), Some(lo)) => format!("{r:.2} (≥ {lo:.2}) of {n}"),
        _ => "– (none labelled)".into(),
    };
    let mut parts = vec![format!(
        "judge's true-positive rate {}, true-negative rate {}",
        rate(e.true_positive_rate, e.true_positive_lower, e.people_right),
        rate(e.true_negative_rate, e.true_negative_lower, e.people_wrong)
    )];
    parts.push(match (e.corrected, e.corrected_ci, e.corrected_not) {
        (Some(t), Some([lo, hi]), _) => {
            format!("corrected for its errors (Rogan–Gladen) {t:.2} [{lo:.2}, {hi:.2}]")
        }
        (Some(t), None, why) => format!(
            "corrected for its errors (Rogan–Gladen) {t:.2}, no interval ({})",
            why.unwrap_or("")
        ),
        (None, _, Some(why)) => format!("no corrected rate: {why}"),
        (None, _, None) => "no corrected rate".into(),
    });
    if let (Some(w), Some(r)) = (e.most_worth_labels, e.rho) {
        parts.push(format!(
            "PPI can make each label worth at most {w:.2} (1/(1 − ρ²), ρ {r:.2})"
        ));
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_better_than_chance_has_no_correction_and_says_so() {
        // The judge calls everything right: q1 = 1, q0 = 0.
        let y = [1.0, 0.0, 1.0, 0.0];
        let yh = [1.0; 4];
        let e = judge_errors(&y, &yh, &[1.0; 10], 0.05, 1);
        assert_eq!(
            (e.true_positive_rate, e.true_negative_rate),
            (Some(1.0), Some(0.0))
        );
        assert_eq!(e.corrected, None);
        assert_eq!(e.corrected_not, Some(NO_BETTER_THAN_CHANCE));
        assert!(line(&e).contains("no better than chance"), "{}", line(&e));
    }

    #[test]
    fn the_correction_is_clipped_to_the_unit_interval() {
        // p below 1 − q0: the formula goes negative.
        assert_eq!(rogan_gladen(0.05, 0.9, 0.8), Some(0.0));
        assert_eq!(rogan_gladen(0.99, 0.9, 0.95), Some(1.0));
        assert_eq!(rogan_gladen(0.5, 0.5, 0.5), None);
    }
}

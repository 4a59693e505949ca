//! Which 95 % interval a figure gets, and when it honestly gets none.
//!
//! - A share (agreement, within-one, accuracy, coverage, false failure rate)
//!   gets the exact (Clopper–Pearson) interval at every n: it never collapses
//!   to a point (two pairs that agree give [0.16, 1.00], not [1, 1]) and never
//!   covers less than its level, as Wilson's did at some n. A share at an
//!   effective size that is not whole (clustered units, half credit) gets the
//!   same interval at that size ([`exact_share_real`]).
//! - A chance-corrected or rank figure (kappa, weighted kappa, alpha,
//!   Spearman) and a mean difference get a percentile bootstrap only from
//!   [`MIN_PAIRS_FOR_BOOTSTRAP`] pairs on, and only when each side used more
//!   than one value. Below that a percentile bootstrap is too unstable to
//!   read, and a figure from a side that never varied is not a measurement
//!   of agreement at all; the figure is then shown with no interval and the
//!   reason ([`NoInterval`]).
//! - A bootstrap whose every resample gave the same value (perfect agreement,
//!   identical answers of two prompt versions) has nothing to say about the
//!   uncertainty: shown with no interval either ([`NoInterval::NoSpread`]).
//!
//! The floor is 30 pairs: the usual rule of thumb for a normal-ish sampling
//! distribution, and the calibration floor of the selective-trust procedure
//! (Jung et al. 2025) that jury also uses.

use serde::Serialize;

/// Fewest pairs for a bootstrap interval of a chance-corrected figure or a
/// difference (see the module docs).
pub const MIN_PAIRS_FOR_BOOTSTRAP: usize = 30;

/// z for a two-sided 95 % interval, Φ⁻¹(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// How an interval was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CiMethod {
    /// Wilson score interval of a share.
    Wilson,
    /// Exact (Clopper–Pearson) interval of a share, mapped onto a figure
    /// that rises with it (PABAK).
    ClopperPearson,
    /// Seeded percentile bootstrap over pairs.
    Bootstrap,
    /// Seeded bootstrap over pairs, its ends bias-corrected and accelerated
    /// (BCa, kappa: see `analytics::bca`).
    Bca,
    /// Seeded percentile bootstrap over combinations, both sides of a
    /// comparison drawn together (differences).
    PairedBootstrap,
    /// The hull of the BCa ends and a jackknife-t interval, inside [-1, 1]
    /// (the ranking's kappa, combinations resampled with all their people:
    /// see `report::paired`).
    BcaJackknifeT,
    /// Jackknife-t over combinations, both sides left out together (a
    /// difference of kappas: see `report::paired`).
    JackknifeT,
}

/// Why a figure that has a value shows no interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoInterval {
    /// Fewer than [`MIN_PAIRS_FOR_BOOTSTRAP`] pairs.
    FewPairs,
    /// One side used a single value: chance correction has nothing to work on.
    OneValue,
    /// Every resample gave the same value.
    NoSpread,
    /// No resamples were asked for (`--bootstrap 0`).
    NotComputed,
    /// Fewer than [`MIN_OFF_DOMINANT`](super::MIN_OFF_DOMINANT) answers off
    /// the most used value on a side: kappa rests on a handful of answers.
    FewOffDominant,
}

impl NoInterval {
    /// A few characters for a table cell: "0.000 (n<30)".
    pub fn short(self) -> &'static str {
        match self {
            NoInterval::FewPairs => "n<30",
            NoInterval::OneValue => "one value",
            NoInterval::NoSpread => "no spread",
            NoInterval::NotComputed => "no CI",
            NoInterval::FewOffDominant => "one value dominates",
        }
    }

    /// The reason in words (JSON, legends, the HTML report).
    pub fn reason(self) -> &'static str {
        match self {
            NoInterval::FewPairs => {
                "fewer than 30 pairs: a bootstrap interval of this figure would not be reliable"
            }
            NoInterval::OneValue => {
                "one side used a single value: the chance-corrected figure measures nothing here"
            }
            NoInterval::NoSpread => {
                "every resample gave the same value: the data show no spread to build an interval from"
            }
            NoInterval::NotComputed => "no resamples were asked for",
            NoInterval::FewOffDominant => {
                "fewer than 10 answers off the most used value on a side: kappa rests on a handful of answers and its bootstrap interval would mislead (it can end at or below 0 at 95 % raw agreement); read AC1 and PABAK"
            }
        }
    }
}

/// The exact (Clopper–Pearson) 95 % interval of `successes` out of `n`,
/// the interval every share jury prints gets; `None` for n = 0. Wilson's
/// oscillates below its level (92.8 % at 0.8 on 40, computed exactly);
/// this one never covers less than 95 % (tests/reference/coverage.rs).
pub fn exact_share(successes: u64, n: u64) -> Option<[f64; 2]> {
    super::accuracy_ci::clopper_pearson(successes, n, 0.05)
}

/// The exact interval of a share `p` at an effective sample size `n` that
/// need not be whole (clustered units, half-credit readings): Clopper–Pearson's
/// beta quantiles at `x = p·n` (Korn & Graubard 1998, the exact interval
/// survey statistics gives a clustered share). Wilson's at the same `n`
/// oscillates below its level as it does for whole counts. The ends are
/// exactly 0 or 1 where `p` is; `None` for n ≤ 0 or p outside [0, 1].
pub fn exact_share_real(p: f64, n: f64) -> Option<[f64; 2]> {
    if !(n > 0.0 && n.is_finite() && (0.0..=1.0).contains(&p)) {
        return None;
    }
    let x = p * n;
    let beta = super::trust::beta_ppf;
    let lo = if p == 0.0 {
        0.0
    } else {
        beta(0.025, x, n - x + 1.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        beta(0.975, x + 1.0, n - x)
    };
    // The beta quantiles bracket the share in exact arithmetic; keep them
    // so when rounding would not.
    Some([lo.min(p), hi.max(p)])
}

/// The 95 % Wilson score interval of `successes` out of `n`; `None` for n = 0.
/// Matches statsmodels' `proportion_confint(method="wilson")`.
pub fn wilson(successes: u64, n: u64) -> Option<[f64; 2]> {
    wilson_z(successes, n, Z95)
}

/// [`wilson`] with another z.
pub fn wilson_z(successes: u64, n: u64, z: f64) -> Option<[f64; 2]> {
    if n == 0 || successes > n {
        return None;
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At 0 (or n) successes the bound is 0 (or 1) exactly; floating point
    // leaves 3e-17 there, which JSON readers would take for a value.
    let lo = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if successes as f64 == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Some([lo, hi])
}

/// The Wilson score interval of a share `p` from an effective sample size
/// `n` that need not be whole (clustered units, half-credit readings); the
/// ends are exactly 0 or 1 where `p` is. `None` for n ≤ 0 or p outside [0, 1].
pub fn wilson_real(p: f64, n: f64, z: f64) -> Option<[f64; 2]> {
    if !(n > 0.0 && (0.0..=1.0).contains(&p) && z.is_finite()) {
        return None;
    }
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    let lo = if p == 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Some([lo, hi])
}

/// What a bootstrap interval becomes under the rules above: kept when `n`
/// reaches the floor, both sides varied and the resamples spread; otherwise
/// the reason there is none.
pub fn bootstrap_rule(
    n: usize,
    sides_vary: bool,
    resamples: usize,
    interval: Option<[f64; 2]>,
) -> Result<Option<[f64; 2]>, NoInterval> {
    // A side that never varied is the more basic reason: say it first.
    if !sides_vary {
        return Err(NoInterval::OneValue);
    }
    if n < MIN_PAIRS_FOR_BOOTSTRAP {
        return Err(NoInterval::FewPairs);
    }
    if resamples == 0 {
        return Err(NoInterval::NotComputed);
    }
    match interval {
        Some([lo, hi]) if hi - lo <= f64::EPSILON * 4.0 => Err(NoInterval::NoSpread),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_never_collapses() {
        let [lo, hi] = wilson(2, 2).unwrap();
        assert!(lo > 0.3 && hi == 1.0, "[{lo}, {hi}]");
        let [lo, hi] = wilson(0, 2).unwrap();
        assert!(lo == 0.0 && hi > 0.6, "[{lo}, {hi}]");
        // Exactly 0 and 1 at the ends, whatever the rounding.
        for n in 1..200 {
            assert_eq!(wilson(0, n).unwrap()[0], 0.0, "0/{n}");
            assert_eq!(wilson(n, n).unwrap()[1], 1.0, "{n}/{n}");
        }
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }

    /// Whole counts give Clopper–Pearson's interval; fractional effective
    /// counts scipy's beta quantiles (`beta.ppf(0.025, x, n - x + 1)`,
    /// `beta.ppf(0.975, x + 1, n - x)`, x = p·n).
    #[test]
    fn the_exact_interval_at_an_effective_size_is_scipys() {
        for (k, n) in [(0u64, 30u64), (24, 40), (40, 40), (3, 7)] {
            let whole = exact_share(k, n).unwrap();
            let real = exact_share_real(k as f64 / n as f64, n as f64).unwrap();
            for (a, b) in whole.iter().zip(real) {
                assert!((a - b).abs() < 1e-12, "{k}/{n}: {whole:?} vs {real:?}");
            }
        }
        for (p, n, want) in [
            (0.8, 37.5, [0.637_420_796_392_169, 0.912_410_883_575_646_3]),
            (
                0.925,
                12.25,
                [0.630_276_691_852_234_1, 0.998_570_722_134_131],
            ),
        ] {
            let got = exact_share_real(p, n).unwrap();
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-9, "{p} at {n}: {got:?} vs {want:?}");
            }
        }
        assert_eq!(exact_share_real(0.5, 0.0), None);
        assert_eq!(exact_share_real(1.5, 10.0), None);
    }

    #[test]
    fn the_rule_names_its_reason() {
        let ci = Some([0.1, 0.5]);
        assert_eq!(
            bootstrap_rule(29, true, 1000, ci),
            Err(NoInterval::FewPairs)
        );
        assert_eq!(
            bootstrap_rule(30, false, 1000, ci),
            Err(NoInterval::OneValue)
        );
        assert_eq!(
            bootstrap_rule(30, true, 0, ci),
            Err(NoInterval::NotComputed)
        );
        assert_eq!(
            bootstrap_rule(40, true, 1000, Some([1.0, 1.0])),
            Err(NoInterval::NoSpread)
        );
        assert_eq!(bootstrap_rule(30, true, 1000, ci), Ok(ci));
    }
}

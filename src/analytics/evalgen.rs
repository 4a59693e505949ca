//! EvalGen-style figures for binary checks (Shankar et al. 2024), with
//! "the classifier was wrong" as the positive class.
//!
//! Input pairs are `(judge_says_wrong, human_says_wrong)`; the human is the
//! reference. TP = both say wrong, FP = only the judge, FN = only the human,
//! TN = both say right.
//!
//! - coverage (recall) = TP / (TP + FN): the share of real errors the judge
//!   catches; `None` when the humans found no error.
//! - false failure rate = FP / (FP + TN): the share of correct outputs the
//!   judge flags; `None` when the humans found nothing correct.
//! - precision = TP / (TP + FP); `None` when the judge never says wrong.
//! - alignment = harmonic mean of coverage and (1 − FFR); `None` if either
//!   is `None`, 0 when both are 0.

use super::interval::exact_share;
use serde::Serialize;

/// Counts and rates for one binary comparison; see the module docs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalGen {
    pub n: u64,
    pub true_positives: u64,
    pub false_positives: u64,
    pub false_negatives: u64,
    pub true_negatives: u64,
    pub coverage: Option<f64>,
    /// 95 % exact (Clopper–Pearson) interval of `coverage`.
    pub coverage_ci95: Option<[f64; 2]>,
    pub false_failure_rate: Option<f64>,
    /// 95 % exact (Clopper–Pearson) interval of `false_failure_rate`.
    pub false_failure_rate_ci95: Option<[f64; 2]>,
    pub precision: Option<f64>,
    pub alignment: Option<f64>,
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den != 0).then(|| num as f64 / den as f64)
}

impl EvalGen {
    /// From the four cell counts.
    pub fn from_counts(tp: u64, fp: u64, fn_: u64, tn: u64) -> Self {
        let coverage = ratio(tp, tp + fn_);
        let false_failure_rate = ratio(fp, fp + tn);
        let alignment = match (coverage, false_failure_rate) {
            (Some(c), Some(f)) => {
                let s = 1.0 - f;
                Some(if c + s == 0.0 {
                    0.0
                } else {
                    2.0 * c * s / (c + s)
                })
            }
            _ => None,
        };
        Self {
            n: tp + fp + fn_ + tn,
            true_positives: tp,
            false_positives: fp,
            false_negatives: fn_,
            true_negatives: tn,
            coverage,
            coverage_ci95: exact_share(tp, tp + fn_),
            false_failure_rate,
            false_failure_rate_ci95: exact_share(fp, fp + tn),
            precision: ratio(tp, tp + fp),
            alignment,
        }
    }

    /// From `(judge_says_wrong, human_says_wrong)` pairs.
    pub fn from_pairs(pairs: &[(bool, bool)]) -> Self {
        let (mut tp, mut fp, mut fn_, mut tn) = (0, 0, 0, 0);
        for &(judge, human) in pairs {
            match (judge, human) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fn_ += 1,
                (false, false) => tn += 1,
            }
        }
        Self::from_counts(tp, fp, fn_, tn)
    }
}

/// EvalGen figures for `(judge_says_wrong, human_says_wrong)` pairs.
pub fn evalgen(pairs: &[(bool, bool)]) -> EvalGen {
    EvalGen::from_pairs(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates() {
        // TP 6, FP 2, FN 2, TN 10.
        let e = EvalGen::from_counts(6, 2, 2, 10);
        assert_eq!(e.n, 20);
        assert_eq!(e.coverage, Some(0.75));
        assert_eq!(e.false_failure_rate, Some(2.0 / 12.0));
        assert_eq!(e.precision, Some(0.75));
        let s = 10.0 / 12.0;
        assert!((e.alignment.unwrap() - 2.0 * 0.75 * s / (0.75 + s)).abs() < 1e-15);
        let mut pairs = vec![(true, true); 6];
        pairs.extend([(true, false); 2]);
        pairs.extend([(false, true); 2]);
        pairs.extend([(false, false); 10]);
        assert_eq!(evalgen(&pairs), e);
    }

    #[test]
    fn degenerate() {
        let e = evalgen(&[]);
        assert_eq!(e.n, 0);
        assert_eq!(
            (e.coverage, e.false_failure_rate, e.precision, e.alignment),
            (None, None, None, None)
        );
        // No human-found errors: coverage undefined, alignment too.
        let e = EvalGen::from_counts(0, 1, 0, 3);
        assert_eq!(e.coverage, None);
        assert_eq!(e.false_failure_rate, Some(0.25));
        assert_eq!(e.alignment, None);
        // Judge gets everything backwards: coverage 0, FFR 1 → alignment 0.
        let e = EvalGen::from_counts(0, 4, 3, 0);
        assert_eq!(e.alignment, Some(0.0));
        assert_eq!(e.precision, Some(0.0));
    }
}

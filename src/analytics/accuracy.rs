//! The classifier's accuracy as one rater sees it: the share of AGREE among
//! that rater's agreement readings (docs/design.md §7). Undecided readings (Likert 3
//! read across scales) are counted and reported but left out of the share.

use super::interval::exact_share;
use crate::domain::Agreement;
use serde::Serialize;

/// One rater's estimate of the classifier's accuracy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyEstimate {
    /// Readings given, undecided included.
    pub n: u64,
    pub agree: u64,
    pub disagree: u64,
    pub undecided: u64,
    /// agree / (agree + disagree); `None` when nothing was decided.
    pub accuracy: Option<f64>,
    /// Exact 95 % interval of the share over the decided readings (a share
    /// never gets a percentile bootstrap: one AGREE would read [1, 1]).
    /// `None` when `accuracy` is `None`.
    pub ci95: Option<[f64; 2]>,
}

impl AccuracyEstimate {
    /// Estimate from readings (`None` = undecided).
    pub fn from_readings(readings: &[Option<Agreement>]) -> Self {
        let (mut agree, mut disagree, mut undecided) = (0u64, 0u64, 0u64);
        for r in readings {
            match r {
                Some(Agreement::Agree) => agree += 1,
                Some(Agreement::Disagree) => disagree += 1,
                None => undecided += 1,
            }
        }
        Self::from_counts(agree, disagree, undecided)
    }

    /// Estimate from counts.
    pub fn from_counts(agree: u64, disagree: u64, undecided: u64) -> Self {
        let decided = agree + disagree;
        Self {
            n: decided + undecided,
            agree,
            disagree,
            undecided,
            accuracy: (decided > 0).then(|| agree as f64 / decided as f64),
            ci95: exact_share(agree, decided),
        }
    }
}

/// Accuracy as each of two raters sees it, from paired readings
/// `(first, second)` on the same items: `[first, second]`.
pub fn accuracy_by_rater(
    readings: &[(Option<Agreement>, Option<Agreement>)],
) -> [AccuracyEstimate; 2] {
    let first: Vec<_> = readings.iter().map(|r| r.0).collect();
    let second: Vec<_> = readings.iter().map(|r| r.1).collect();
    [
        AccuracyEstimate::from_readings(&first),
        AccuracyEstimate::from_readings(&second),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use Agreement::*;

    #[test]
    fn share_of_agree_ignores_undecided() {
        let r = [Some(Agree), Some(Agree), Some(Disagree), None, Some(Agree)];
        let e = AccuracyEstimate::from_readings(&r);
        assert_eq!((e.n, e.agree, e.disagree, e.undecided), (5, 3, 1, 1));
        assert_eq!(e.accuracy, Some(0.75));
        assert_eq!(e.ci95, exact_share(3, 4));
    }

    #[test]
    fn degenerate() {
        let e = AccuracyEstimate::from_readings(&[]);
        assert_eq!((e.accuracy, e.ci95), (None, None));
        let e = AccuracyEstimate::from_readings(&[None, None]);
        assert_eq!((e.undecided, e.accuracy, e.ci95), (2, None, None));
        // One AGREE is not certainty.
        let e = AccuracyEstimate::from_readings(&[Some(Agree)]);
        let [lo, hi] = e.ci95.unwrap();
        assert_eq!(e.accuracy, Some(1.0));
        assert!(lo < 0.3 && hi == 1.0, "[{lo}, {hi}]");
    }

    #[test]
    fn per_rater() {
        let r = [(Some(Agree), Some(Disagree)), (Some(Agree), Some(Agree))];
        let [judge, human] = accuracy_by_rater(&r);
        assert_eq!(judge.accuracy, Some(1.0));
        assert_eq!(human.accuracy, Some(0.5));
    }
}

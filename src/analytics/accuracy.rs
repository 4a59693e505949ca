//! The classifier's accuracy as one rater sees it: the share of AGREE among
//! that rater's agreement readings (DESIGN §7). Undecided readings (Likert 3
//! read across scales) are counted and reported but left out of the share.

use super::bootstrap::percentile_interval;
use super::rng::Xoshiro256pp;
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
    /// 95 % percentile bootstrap interval, resampling all readings (the
    /// undecided ones too, so the varying denominator is accounted for);
    /// resamples without a decided reading are skipped. `None` when
    /// `accuracy` is `None` or `resamples` is 0.
    pub ci95: Option<[f64; 2]>,
}

impl AccuracyEstimate {
    /// Estimate from readings (`None` = undecided), with a seeded bootstrap.
    pub fn from_readings(readings: &[Option<Agreement>], resamples: usize, seed: u64) -> Self {
        let (mut agree, mut disagree, mut undecided) = (0u64, 0u64, 0u64);
        for r in readings {
            match r {
                Some(Agreement::Agree) => agree += 1,
                Some(Agreement::Disagree) => disagree += 1,
                None => undecided += 1,
            }
        }
        Self::from_counts(agree, disagree, undecided, resamples, seed)
    }

    /// Estimate from counts. The bootstrap orders readings as all AGREE, then
    /// DISAGREE, then undecided, and draws indices exactly like
    /// [`bootstrap_ci`](super::bootstrap_ci); from
    /// [`MULTINOMIAL_MIN_PAIRS`](super::MULTINOMIAL_MIN_PAIRS) readings on it
    /// draws the three counts as one multinomial instead.
    pub fn from_counts(
        agree: u64,
        disagree: u64,
        undecided: u64,
        resamples: usize,
        seed: u64,
    ) -> Self {
        let n = agree + disagree + undecided;
        let decided = agree + disagree;
        let accuracy = (decided > 0).then(|| agree as f64 / decided as f64);
        let ci95 = if accuracy.is_some() && resamples > 0 {
            let mut values = Vec::with_capacity(resamples);
            for r in 0..resamples {
                let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
                let (mut a, mut d) = (0u64, 0u64);
                if n as usize >= super::MULTINOMIAL_MIN_PAIRS {
                    // The same resample distribution in O(1) (see bootstrap).
                    let mut drawn = [0u64; 3];
                    super::multinomial(&mut rng, n, &[agree, disagree, undecided], &mut drawn);
                    (a, d) = (drawn[0], drawn[1]);
                } else {
                    for _ in 0..n {
                        let j = rng.below(n);
                        if j < agree {
                            a += 1;
                        } else if j < decided {
                            d += 1;
                        }
                    }
                }
                if a + d > 0 {
                    values.push(a as f64 / (a + d) as f64);
                }
            }
            percentile_interval(&mut values).map(|(lo, hi)| [lo, hi])
        } else {
            None
        };
        Self {
            n,
            agree,
            disagree,
            undecided,
            accuracy,
            ci95,
        }
    }
}

/// Accuracy as each of two raters sees it, from paired readings
/// `(first, second)` on the same items: `[first, second]`. Each side uses
/// the same seed, so each interval is what a single-rater call would give.
pub fn accuracy_by_rater(
    readings: &[(Option<Agreement>, Option<Agreement>)],
    resamples: usize,
    seed: u64,
) -> [AccuracyEstimate; 2] {
    let first: Vec<_> = readings.iter().map(|r| r.0).collect();
    let second: Vec<_> = readings.iter().map(|r| r.1).collect();
    // The two bootstraps are independent: one per core for large inputs
    // (same results either way: each is seeded on its own).
    if readings.len() * resamples < 1_000_000 {
        return [
            AccuracyEstimate::from_readings(&first, resamples, seed),
            AccuracyEstimate::from_readings(&second, resamples, seed),
        ];
    }
    std::thread::scope(|s| {
        let a = s.spawn(|| AccuracyEstimate::from_readings(&first, resamples, seed));
        let b = AccuracyEstimate::from_readings(&second, resamples, seed);
        [a.join().expect("accuracy bootstrap panicked"), b]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Agreement::*;

    #[test]
    fn share_of_agree_ignores_undecided() {
        let r = [Some(Agree), Some(Agree), Some(Disagree), None, Some(Agree)];
        let e = AccuracyEstimate::from_readings(&r, 500, 3);
        assert_eq!((e.n, e.agree, e.disagree, e.undecided), (5, 3, 1, 1));
        assert_eq!(e.accuracy, Some(0.75));
        let [lo, hi] = e.ci95.unwrap();
        assert!((0.0..=0.75).contains(&lo) && (0.75..=1.0).contains(&hi));
        assert_eq!(e, AccuracyEstimate::from_readings(&r, 500, 3));
    }

    #[test]
    fn degenerate() {
        let e = AccuracyEstimate::from_readings(&[], 100, 1);
        assert_eq!((e.accuracy, e.ci95), (None, None));
        let e = AccuracyEstimate::from_readings(&[None, None], 100, 1);
        assert_eq!((e.undecided, e.accuracy, e.ci95), (2, None, None));
        let e = AccuracyEstimate::from_readings(&[Some(Agree)], 100, 1);
        assert_eq!((e.accuracy, e.ci95), (Some(1.0), Some([1.0, 1.0])));
        let e = AccuracyEstimate::from_readings(&[Some(Agree)], 0, 1);
        assert_eq!(e.ci95, None);
    }

    #[test]
    fn per_rater() {
        let r = [(Some(Agree), Some(Disagree)), (Some(Agree), Some(Agree))];
        let [judge, human] = accuracy_by_rater(&r, 50, 9);
        assert_eq!(judge.accuracy, Some(1.0));
        assert_eq!(human.accuracy, Some(0.5));
    }
}

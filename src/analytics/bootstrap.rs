//! Seeded percentile bootstrap.
//!
//! Each resample draws n pairs with replacement (resample `r` uses the
//! generator [`Xoshiro256pp::for_stream`]`(seed, r)`, drawing indices with
//! [`Xoshiro256pp::below`]), evaluates the statistic, and skips the resample
//! if the statistic is `None` (or not finite). The interval is the 2.5 % and
//! 97.5 % percentile of the kept values, linearly interpolated between order
//! statistics (numpy's default `percentile` method).
//!
//! Cost is O(n) per resample, so O(n·resamples) in total; see
//! [`recommended_resamples`] for scaling the resample count down on very
//! large inputs. [`Figures`](super::Figures) needs only the resampled
//! confusion matrix, which from [`MULTINOMIAL_MIN_PAIRS`] pairs on is drawn
//! directly as one multinomial over the k² cells (the same distribution, at
//! O(k²) per resample whatever n is).

use super::ConfusionMatrix;
use super::rng::Xoshiro256pp;

/// Resample count used when the caller has no reason to choose another.
pub const DEFAULT_RESAMPLES: usize = 1000;

/// About how many pair draws a full [`Figures`](super::Figures) bootstrap may
/// spend: measured ≈ 0.8 s wall on an idle 2-core machine (≈ 4 ns per draw
/// per core), leaving room in a 2 s budget for everything else.
pub const DRAW_BUDGET: usize = 200_000_000;

/// A resample count that keeps the bootstrap within [`DRAW_BUDGET`] draws:
/// [`DEFAULT_RESAMPLES`] while `n · 1000` fits, otherwise `DRAW_BUDGET / n`,
/// but never below 200 (so n = 1e6 gets 200 resamples). With large n the
/// interval is narrow and 200 resamples pin its ends well enough for a report.
pub fn recommended_resamples(n: usize) -> usize {
    if n == 0 {
        return DEFAULT_RESAMPLES;
    }
    (DRAW_BUDGET / n).clamp(200, DEFAULT_RESAMPLES)
}

/// 95 % percentile bootstrap interval of `stat` over `pairs` (k categories).
///
/// `None` when there are no pairs, `resamples` is 0, or the statistic was
/// `None` on every resample. Same `seed` and inputs give the same interval on
/// every platform. The statistic receives a reused buffer, so the loop itself
/// does not allocate (the statistic may).
pub fn bootstrap_ci(
    pairs: &[(u8, u8)],
    k: usize,
    stat: impl Fn(&[(u8, u8)], usize) -> Option<f64>,
    resamples: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    let n = pairs.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    let mut buf = pairs.to_vec();
    let mut values = Vec::with_capacity(resamples);
    for r in 0..resamples {
        let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
        for slot in buf.iter_mut() {
            *slot = pairs[rng.below(n as u64) as usize];
        }
        if let Some(v) = stat(&buf, k).filter(|v| v.is_finite()) {
            values.push(v);
        }
    }
    percentile_interval(&mut values)
}

/// The 2.5 % and 97.5 % percentiles of `values` (sorted in place); `None`
/// when empty. Non-finite values must be filtered out by the caller.
pub fn percentile_interval(values: &mut [f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((percentile(values, 0.025), percentile(values, 0.975)))
}

/// Linear interpolation between order statistics of sorted `v` (non-empty).
fn percentile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// Below this many draws in total the bootstrap stays on the calling thread.
const PARALLEL_MIN_DRAWS: usize = 4_000_000;

/// From this many pairs on, a resampled confusion matrix is drawn as one
/// multinomial over its cells instead of pair by pair. Below it the draws
/// are exactly those of [`bootstrap_ci`] (small groups then reproduce a
/// pairwise bootstrap draw for draw, which the tests rely on).
pub const MULTINOMIAL_MIN_PAIRS: usize = 2_000;

/// Resamples the cell vector `cells` (one confusion-cell index per pair, in
/// pair order) `resamples` times and returns `eval` of each resampled matrix,
/// in resample order. Uses exactly the draws of [`bootstrap_ci`], so both see
/// the same resamples for the same seed.
///
/// Large jobs are split into contiguous blocks of resamples over the
/// available cores (scoped threads); as every resample has its own generator
/// the result does not depend on the number of threads. If a thread cannot
/// be started its block runs on the calling thread.
pub(crate) fn bootstrap_matrices<T: Send>(
    cells: &[u16],
    template: &ConfusionMatrix,
    resamples: usize,
    seed: u64,
    eval: impl Fn(&ConfusionMatrix) -> T + Sync,
) -> Vec<T> {
    if cells.is_empty() || resamples == 0 {
        return Vec::new();
    }
    if cells.len() >= MULTINOMIAL_MIN_PAIRS {
        return multinomial_block(template, 0..resamples, seed, &eval);
    }
    let threads = if cells.len().saturating_mul(resamples) < PARALLEL_MIN_DRAWS {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(resamples)
    };
    let block = resamples.div_ceil(threads);
    let run = |from: usize| -> Vec<T> {
        let to = (from + block).min(resamples);
        resample_block(cells, template, from..to, seed, &eval)
    };
    if threads == 1 {
        return run(0);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let from = t * block;
                let handle = std::thread::Builder::new().spawn_scoped(scope, move || run(from));
                (from, handle)
            })
            .collect();
        let mut out = Vec::with_capacity(resamples);
        for (from, handle) in handles {
            match handle.map(|h| h.join()) {
                Ok(Ok(part)) => out.extend(part),
                // Spawn failed (or, impossibly, the block panicked): redo inline.
                _ => out.extend(run(from)),
            }
        }
        out
    })
}

/// Resampled matrices drawn as multinomials over the template's cells (see
/// [`MULTINOMIAL_MIN_PAIRS`]); resample `r` uses its own generator, as below.
fn multinomial_block<T>(
    template: &ConfusionMatrix,
    range: std::ops::Range<usize>,
    seed: u64,
    eval: &impl Fn(&ConfusionMatrix) -> T,
) -> Vec<T> {
    let weights = template.counts();
    let n = template.n();
    let mut counts = vec![0u64; weights.len()];
    let mut scratch = template.clone();
    range
        .map(|r| {
            let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
            super::binomial::multinomial(&mut rng, n, weights, &mut counts);
            scratch.set_counts_from(&counts);
            eval(&scratch)
        })
        .collect()
}

/// Resamples `range` of the resample indices on the current thread.
fn resample_block<T>(
    cells: &[u16],
    template: &ConfusionMatrix,
    range: std::ops::Range<usize>,
    seed: u64,
    eval: &impl Fn(&ConfusionMatrix) -> T,
) -> Vec<T> {
    let n = cells.len();
    let m = template.counts().len();
    let mut out = Vec::with_capacity(range.len());
    let mut scratch = template.clone();
    // Four count banks, used in turn, so consecutive draws of the same cell
    // do not wait on each other's increment; summed into `counts` after.
    let mut banks = vec![0u32; 4 * m];
    let mut counts = vec![0u64; m];
    let bound = n as u64;
    for r in range {
        let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
        counts.fill(0);
        let mut done = 0usize;
        while done < n {
            // u32 banks cannot overflow: flush at least every 2^31 draws.
            let chunk = (n - done).min(1 << 31);
            banks.fill(0);
            let (b0, rest) = banks.split_at_mut(m);
            let (b1, rest) = rest.split_at_mut(m);
            let (b2, b3) = rest.split_at_mut(m);
            let mut left = chunk;
            while left >= 4 {
                b0[cells[rng.below(bound) as usize] as usize] += 1;
                b1[cells[rng.below(bound) as usize] as usize] += 1;
                b2[cells[rng.below(bound) as usize] as usize] += 1;
                b3[cells[rng.below(bound) as usize] as usize] += 1;
                left -= 4;
            }
            for _ in 0..left {
                b0[cells[rng.below(bound) as usize] as usize] += 1;
            }
            for (i, c) in counts.iter_mut().enumerate() {
                *c += u64::from(b0[i]) + u64::from(b1[i]) + u64::from(b2[i]) + u64::from(b3[i]);
            }
            done += chunk;
        }
        scratch.set_counts_from(&counts);
        out.push(eval(&scratch));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::{cohen_kappa, percent_agreement};

    #[test]
    fn percentiles_match_numpy_linear() {
        // numpy.percentile(range(11), [2.5, 97.5]) = [0.25, 9.75]
        let mut v: Vec<f64> = (0..11).rev().map(f64::from).collect();
        assert_eq!(percentile_interval(&mut v), Some((0.25, 9.75)));
        assert_eq!(percentile_interval(&mut [3.0]), Some((3.0, 3.0)));
        assert_eq!(percentile_interval(&mut []), None);
    }

    #[test]
    fn reproducible_and_sensible() {
        let pairs: Vec<(u8, u8)> = (0..200u32)
            .map(|i| ((i % 3) as u8, if i % 5 == 0 { 2 } else { (i % 3) as u8 }))
            .collect();
        let a = bootstrap_ci(&pairs, 3, percent_agreement, 500, 7).unwrap();
        let b = bootstrap_ci(&pairs, 3, percent_agreement, 500, 7).unwrap();
        assert_eq!(a, b);
        let point = percent_agreement(&pairs, 3).unwrap();
        assert!(a.0 < point && point < a.1, "{a:?} around {point}");
        let c = bootstrap_ci(&pairs, 3, percent_agreement, 500, 8).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn degenerate() {
        assert_eq!(bootstrap_ci(&[], 3, percent_agreement, 100, 1), None);
        assert_eq!(bootstrap_ci(&[(0, 0)], 3, percent_agreement, 0, 1), None);
        // Kappa is None on every resample of a constant sample.
        assert_eq!(bootstrap_ci(&[(1, 1); 5], 3, cohen_kappa, 100, 1), None);
        // One pair: every resample is that pair.
        assert_eq!(
            bootstrap_ci(&[(1, 2)], 3, percent_agreement, 10, 1),
            Some((0.0, 0.0))
        );
    }

    #[test]
    fn recommended_resamples_scale_down() {
        assert_eq!(recommended_resamples(0), 1000);
        assert_eq!(recommended_resamples(10_000), 1000);
        assert_eq!(recommended_resamples(1_000_000), 200);
        assert_eq!(recommended_resamples(500_000), 400);
    }
}

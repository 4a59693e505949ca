//! Exact binomial and multinomial draws, so a bootstrap over a large group
//! can resample its confusion matrix (k² cells) instead of its n pairs.
//!
//! Resampling n pairs with replacement and counting them per cell is, by
//! definition, one multinomial draw of size n over the cells with the
//! observed cell shares as probabilities. Drawing that multinomial as a
//! chain of conditional binomials costs O(k²) per resample, whatever n is.
//!
//! Binomials: inversion (sequential search from 0) when the mean is small,
//! otherwise Hörmann's transformed rejection with squeeze, BTRS ("The
//! generation of binomial random variates", J. Statist. Comput. Simul. 46,
//! 1993), which is exact: the acceptance test uses log-factorials.

use super::rng::Xoshiro256pp;

/// A uniform double in [0, 1) from the top 53 bits.
#[inline]
fn uniform(rng: &mut Xoshiro256pp) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// ln(k!) exact to double precision: summed for small k, Stirling's series
/// (to the k⁻⁵ term, error < 1e-16 relative for k ≥ 16) above.
fn ln_factorial(k: f64) -> f64 {
    if k < 16.0 {
        let mut s = 0.0;
        let mut i = 2.0;
        while i <= k {
            s += f64::ln(i);
            i += 1.0;
        }
        return s;
    }
    let k2 = k * k;
    k * k.ln() - k + 0.5 * (2.0 * std::f64::consts::PI * k).ln() + 1.0 / (12.0 * k)
        - 1.0 / (360.0 * k * k2)
        + 1.0 / (1260.0 * k * k2 * k2)
}

/// One draw from Binomial(n, p).
pub fn binomial(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(rng, n, 1.0 - p);
    }
    if (n as f64) * p < 10.0 {
        inversion(rng, n, p)
    } else {
        btrs(rng, n, p)
    }
}

/// Sequential search of the CDF from 0 (mean below 10, p ≤ 0.5).
fn inversion(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    let q = 1.0 - p;
    let s = p / q;
    let a = (n as f64 + 1.0) * s;
    let r0 = q.powf(n as f64);
    loop {
        let mut r = r0;
        let mut u = uniform(rng);
        let mut x = 0u64;
        while u > r {
            u -= r;
            x += 1;
            if x > n {
                break;
            }
            r *= a / x as f64 - s;
        }
        // Rounding can leave u above the whole CDF: draw again.
        if x <= n {
            return x;
        }
    }
}

/// BTRS for n·p ≥ 10, p ≤ 0.5.
fn btrs(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    let nf = n as f64;
    let q = 1.0 - p;
    let spq = (nf * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = nf * p + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let lpq = (p / q).ln();
    let m = ((nf + 1.0) * p).floor();
    let h = ln_factorial(m) + ln_factorial(nf - m);
    loop {
        let u = uniform(rng) - 0.5;
        let v = uniform(rng);
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > nf {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k as u64;
        }
        let v = v * alpha / (a / (us * us) + b);
        if v.ln() <= h - ln_factorial(k) - ln_factorial(nf - k) + (k - m) * lpq {
            return k as u64;
        }
    }
}

/// Fills `out` with one multinomial draw of size `n` over cells whose
/// probabilities are `weights[i] / sum(weights)` (conditional binomials, in
/// cell order). `out` and `weights` have the same length; the sum must be > 0.
pub fn multinomial(rng: &mut Xoshiro256pp, n: u64, weights: &[u64], out: &mut [u64]) {
    let mut left_n = n;
    let mut left_w: u64 = weights.iter().sum();
    for (w, o) in weights.iter().zip(out.iter_mut()) {
        *o = if left_n == 0 || *w == 0 {
            0
        } else if *w == left_w {
            left_n
        } else {
            binomial(rng, left_n, *w as f64 / left_w as f64)
        };
        left_n -= *o;
        left_w -= w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(n: u64, p: f64, draws: usize, seed: u64) -> (f64, f64) {
        let mut rng = Xoshiro256pp::seed_from_u64(seed);
        let xs: Vec<f64> = (0..draws)
            .map(|_| binomial(&mut rng, n, p) as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / draws as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (draws - 1) as f64;
        (mean, var)
    }

    #[test]
    fn ln_factorial_matches_the_product() {
        let mut exact = 0.0f64;
        for k in 1..200u32 {
            exact += f64::from(k).ln();
            let got = ln_factorial(f64::from(k));
            assert!(
                (got - exact).abs() < 1e-9 * exact.max(1.0),
                "{k}: {got} vs {exact}"
            );
        }
        assert_eq!(ln_factorial(0.0), 0.0);
    }

    #[test]
    fn mean_and_variance_hold_in_both_regimes() {
        // (n, p): inversion, BTRS, p > 0.5 by symmetry, and a large n.
        for (n, p) in [
            (20, 0.1),
            (1000, 0.004),
            (100, 0.3),
            (5000, 0.5),
            (1000, 0.9),
            (1_000_000, 0.17),
        ] {
            let draws = 40_000;
            let (mean, var) = moments(n, p, draws, n ^ 99);
            let (m0, v0) = (n as f64 * p, n as f64 * p * (1.0 - p));
            // Five standard errors of the mean and of the variance.
            let se_mean = (v0 / draws as f64).sqrt();
            assert!(
                (mean - m0).abs() < 5.0 * se_mean,
                "n={n} p={p}: mean {mean} vs {m0}"
            );
            let se_var = v0 * (2.0 / draws as f64).sqrt();
            assert!(
                (var - v0).abs() < 5.0 * se_var + 1e-9,
                "n={n} p={p}: var {var} vs {v0}"
            );
        }
    }

    #[test]
    fn btrs_follows_the_exact_distribution() {
        // Chi-square against the binomial pmf for n = 60, p = 0.4 (BTRS
        // region: mean 24), cells with expected count ≥ 20.
        let (n, p, draws) = (60u64, 0.4, 200_000usize);
        let mut rng = Xoshiro256pp::seed_from_u64(5);
        let mut counts = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            counts[binomial(&mut rng, n, p) as usize] += 1;
        }
        let ln_pmf = |k: f64| {
            ln_factorial(n as f64) - ln_factorial(k) - ln_factorial(n as f64 - k)
                + k * p.ln()
                + (n as f64 - k) * (1.0 - p).ln()
        };
        let (mut chi2, mut df) = (0.0, 0);
        for (k, &c) in counts.iter().enumerate() {
            let e = draws as f64 * ln_pmf(k as f64).exp();
            if e >= 20.0 {
                chi2 += (c as f64 - e).powi(2) / e;
                df += 1;
            }
        }
        // df ≈ 25: the 99.9th percentile of chi-square(25) is about 52.6.
        assert!(df > 15, "{df}");
        assert!(chi2 < 52.6, "chi2 {chi2} on {df} cells");
    }

    #[test]
    fn multinomial_sums_to_n_and_keeps_empty_cells_empty() {
        let mut rng = Xoshiro256pp::seed_from_u64(1);
        let weights = [500, 0, 250, 250, 0];
        let mut out = [0u64; 5];
        let mut totals = [0u64; 5];
        for _ in 0..2000 {
            multinomial(&mut rng, 1000, &weights, &mut out);
            assert_eq!(out.iter().sum::<u64>(), 1000);
            assert_eq!((out[1], out[4]), (0, 0));
            for (t, o) in totals.iter_mut().zip(out) {
                *t += o;
            }
        }
        let share = totals[0] as f64 / 2_000_000.0;
        assert!((share - 0.5).abs() < 0.002, "{share}");
        multinomial(&mut rng, 7, &[0, 3], &mut out[..2]);
        assert_eq!(&out[..2], &[0, 7]);
    }

    #[test]
    fn edge_probabilities() {
        let mut rng = Xoshiro256pp::seed_from_u64(3);
        assert_eq!(binomial(&mut rng, 0, 0.5), 0);
        assert_eq!(binomial(&mut rng, 10, 0.0), 0);
        assert_eq!(binomial(&mut rng, 10, 1.0), 10);
        for _ in 0..1000 {
            assert!(binomial(&mut rng, 3, 0.999) <= 3);
        }
    }
}

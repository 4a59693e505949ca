//! Active statistical inference of a mean (Zrnic & Candès, ICML 2024):
//! labels drawn with known probabilities that grow where the judge is
//! unsure, reweighted so the estimate stays unbiased.
//!
//! The design jury uses: an active order is a sequence of seeded draws
//! *with replacement* from the M combinations, draw k picking combination i
//! with probability `p_i` (Σp = 1). Stopping after any number of draws
//! leaves an unbiased estimate (each draw is an independent term), and a
//! combination drawn twice counts twice (its label is reused). The random
//! sample order is the same with `p = 1/M`. With `r = Y − λŶ`:
//!
//! `θ = λ·mean(Ŷ over all M) + (1/n)·Σ_draws r_k / (M·p_k)`
//!
//! which is the paper's `θ = mean_i[ λŶ_i + (Y_i − λŶ_i)·m_i/π_i ]` with
//! `m_i` the draws of i and `π_i = n·p_i` (its expected draws): `n/M` for a
//! label of the random order, as PPI's uniform sample. Labels of the two
//! orders pool into one estimate: each design's terms have the same mean,
//! and the variance is the sum of each design's own, weighted by its share
//! of the draws:
//!
//! `se² = λ²·var0(Ŷ)/M + Σ_d (n_d/n)²·var0(terms of d)/n_d`
//!
//! (the first term, as PPI++'s `var(λŶu)/N`, treats the combinations as a
//! sample of a larger population). λ minimises se², clipped to [0, 1].

use super::ppi::z_two_sided;
use serde::Serialize;

/// How a label's combination was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Design {
    /// The random sample order: every combination equally likely.
    Uniform,
    /// The active order: probability `p` per draw.
    Active,
}

/// One labelled combination and how it was drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    /// People's reading (1 right, 0 wrong).
    pub y: f64,
    /// The judge's reading (1, 0, or 0.5 undecided).
    pub y_hat: f64,
    /// The probability one draw picks it, among the M combinations;
    /// ignored (1/M) for [`Design::Uniform`].
    pub p: f64,
    /// How many draws picked it (1 unless drawn again).
    pub count: u32,
    pub design: Design,
}

/// The active estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ActiveEstimate {
    pub estimate: f64,
    pub ci: [f64; 2],
    pub se: f64,
    pub lambda: f64,
    /// Draws in all (a combination drawn twice counts twice).
    pub n: usize,
    /// Of the `n`: draws of the random order and of the active order.
    pub n_uniform: usize,
    pub n_active: usize,
}

/// Why no active estimate could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoActive {
    NoDraws,
    NoPopulation,
    /// A draw probability outside (0, 1].
    BadProbability,
    BadAlpha,
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn var0(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64
}

fn cov0(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / x.len() as f64
}

/// Per design: the draws' `a = Y/(M·p)` and `b = Ŷ/(M·p)`, each draw
/// repeated by its count, so the term of a draw is `a − λ·b`.
struct Parts {
    a: [Vec<f64>; 2],
    b: [Vec<f64>; 2],
}

fn parts(draws: &[Draw], m: usize) -> Result<Parts, NoActive> {
    let mut out = Parts {
        a: [Vec::new(), Vec::new()],
        b: [Vec::new(), Vec::new()],
    };
    let big_m = m as f64;
    for d in draws {
        let (slot, mp) = match d.design {
            Design::Uniform => (0, 1.0),
            Design::Active => {
                if !(d.p > 0.0 && d.p <= 1.0) {
                    return Err(NoActive::BadProbability);
                }
                (1, big_m * d.p)
            }
        };
        for _ in 0..d.count {
            out.a[slot].push(d.y / mp);
            out.b[slot].push(d.y_hat / mp);
        }
    }
    Ok(out)
}

/// The λ that minimises the estimate's variance, clipped to [0, 1]; 0 where
/// the judge's readings carry no information (no variance anywhere).
pub fn active_lambda(draws: &[Draw], y_hat_all: &[f64]) -> Result<f64, NoActive> {
    let p = check(draws, y_hat_all)?;
    Ok(lambda_of(&p, y_hat_all))
}

fn lambda_of(p: &Parts, y_hat_all: &[f64]) -> f64 {
    let n: usize = p.a.iter().map(Vec::len).sum();
    let mut num = 0.0;
    let mut den = var0(y_hat_all) / y_hat_all.len() as f64;
    for d in 0..2 {
        if p.a[d].is_empty() {
            continue;
        }
        let w = p.a[d].len() as f64 / (n as f64 * n as f64);
        num += w * cov0(&p.a[d], &p.b[d]);
        den += w * var0(&p.b[d]);
    }
    if den <= 0.0 || !den.is_finite() || !num.is_finite() {
        return 0.0;
    }
    (num / den).clamp(0.0, 1.0)
}

fn check(draws: &[Draw], y_hat_all: &[f64]) -> Result<Parts, NoActive> {
    if y_hat_all.is_empty() {
        return Err(NoActive::NoPopulation);
    }
    let p = parts(draws, y_hat_all.len())?;
    if p.a.iter().all(Vec::is_empty) {
        return Err(NoActive::NoDraws);
    }
    Ok(p)
}

/// The estimate and its interval for a given λ. `y_hat_all`: the judge's
/// readings on all M combinations, labelled or not.
pub fn active_mean_ci_with(
    draws: &[Draw],
    y_hat_all: &[f64],
    alpha: f64,
    lambda: f64,
) -> Result<ActiveEstimate, NoActive> {
    let p = check(draws, y_hat_all)?;
    estimate_of(&p, y_hat_all, alpha, lambda)
}

fn estimate_of(
    p: &Parts,
    y_hat_all: &[f64],
    alpha: f64,
    lambda: f64,
) -> Result<ActiveEstimate, NoActive> {
    let z = z_two_sided(alpha);
    if !(alpha > 0.0 && alpha < 1.0 && z.is_finite()) {
        return Err(NoActive::BadAlpha);
    }
    let big_m = y_hat_all.len() as f64;
    let counts = [p.a[0].len(), p.a[1].len()];
    let n = counts[0] + counts[1];
    let mut sum = 0.0;
    let mut var = lambda * lambda * var0(y_hat_all) / big_m;
    for (a_d, b_d) in p.a.iter().zip(&p.b) {
        if a_d.is_empty() {
            continue;
        }
        let terms: Vec<f64> = a_d.iter().zip(b_d).map(|(a, b)| a - lambda * b).collect();
        sum += terms.iter().sum::<f64>();
        let share = a_d.len() as f64 / n as f64;
        var += share * share * var0(&terms) / a_d.len() as f64;
    }
    let estimate = lambda * mean(y_hat_all) + sum / n as f64;
    let se = var.sqrt();
    Ok(ActiveEstimate {
        estimate,
        ci: [estimate - z * se, estimate + z * se],
        se,
        lambda,
        n,
        n_uniform: counts[0],
        n_active: counts[1],
    })
}

/// The power-tuned active estimate ([`active_lambda`]) and its interval.
pub fn active_mean_ci(
    draws: &[Draw],
    y_hat_all: &[f64],
    alpha: f64,
) -> Result<ActiveEstimate, NoActive> {
    let p = check(draws, y_hat_all)?;
    estimate_of(&p, y_hat_all, alpha, lambda_of(&p, y_hat_all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform(y: f64, y_hat: f64) -> Draw {
        Draw {
            y,
            y_hat,
            p: 0.0,
            count: 1,
            design: Design::Uniform,
        }
    }

    #[test]
    fn uniform_draws_at_lambda_one_are_plain_ppi_over_the_population() {
        // θ = mean(Ŷ over all) + mean(Y − Ŷ over labels).
        let all = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let draws = [uniform(1.0, 1.0), uniform(0.0, 1.0), uniform(1.0, 0.0)];
        let e = active_mean_ci_with(&draws, &all, 0.05, 1.0).unwrap();
        assert!((e.estimate - (4.0 / 6.0 + 0.0)).abs() < 1e-12);
        assert_eq!((e.n, e.n_uniform, e.n_active), (3, 3, 0));
    }

    #[test]
    fn a_draw_counts_as_often_as_it_was_drawn_and_bad_input_is_refused() {
        let all = [1.0, 0.0];
        let once = Draw {
            y: 1.0,
            y_hat: 0.0,
            p: 0.5,
            count: 1,
            design: Design::Active,
        };
        let twice = Draw { count: 2, ..once };
        let a = active_mean_ci_with(&[once], &all, 0.05, 0.0).unwrap();
        let b = active_mean_ci_with(&[twice], &all, 0.05, 0.0).unwrap();
        assert_eq!((a.estimate, b.estimate, b.n), (1.0, 1.0, 2));
        let bad = Draw { p: 0.0, ..once };
        assert_eq!(
            active_mean_ci(&[bad], &all, 0.05),
            Err(NoActive::BadProbability)
        );
        assert_eq!(active_mean_ci(&[], &all, 0.05), Err(NoActive::NoDraws));
        assert_eq!(
            active_mean_ci(&[once], &[], 0.05),
            Err(NoActive::NoPopulation)
        );
        assert_eq!(active_mean_ci(&[once], &all, 1.5), Err(NoActive::BadAlpha));
    }
}

//! How many labels an interval of half-width w needs, under labels alone,
//! uniform PPI++ and active sampling (STATISTICS.md, "Planning labels";
//! Zrnic & Candès 2024 §4), from the labels so far. Each scheme's interval
//! is `z·sqrt(v/n + u)`: `v` the variance of one label's term, `u` the
//! judge's own term `λ²·var0(Ŷ)/M` (0 for labels alone), so ±w needs
//! `n = v / (w²/z² − u)`.
//! - labels alone: `v = p(1 − p)`;
//! - uniform PPI++: `v = var0(Y − λŶ)`;
//! - active, drawing by `p_i`: one draw's term is `r/(M·p)`, `r = Y − λŶ`,
//!   so `v = Σ_i r_i²/(M²·p_i) − mean(r)²`, its first part estimated from
//!   the draws so far (each made with probability `q`, 1/M for a uniform
//!   label) as `(1/n)·Σ_k r_k² / (M·p_k · M·q_k)`.
//!
//! Every figure is an estimate from few labels, and is said to be one.

use serde::Serialize;

/// One label or draw the plan learns from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    pub y: f64,
    pub y_hat: f64,
    /// The probability the draw that gave it had (1/M for a uniform label).
    pub q: f64,
    /// The probability the active order gives it now.
    pub p_now: f64,
    pub count: u32,
}

/// One scheme's plan: labels in all, still needed, and the width after
/// `at` more.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SchemePlan {
    /// Labels the scheme's line uses now.
    pub now: usize,
    /// More labels for ±w (`None`: the judge's own term alone is wider, or
    /// nothing to learn from).
    pub more: Option<usize>,
    /// The half-width after `at` more labels.
    pub width_at: Option<f64>,
}

/// The three schemes side by side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plans {
    pub labels_alone: SchemePlan,
    pub uniform: SchemePlan,
    pub active: SchemePlan,
}

fn mean(x: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (s, w) = x.fold((0.0, 0.0), |(s, w), (v, c)| (s + v * c, w + c));
    s / w
}

fn scheme(v: f64, u: f64, now: usize, z: f64, w: f64, at: usize) -> SchemePlan {
    if !(v.is_finite() && v > 0.0) {
        return SchemePlan {
            now,
            more: None,
            width_at: None,
        };
    }
    let room = w * w / (z * z) - u;
    let more = (room > 0.0).then(|| ((v / room).ceil() as usize).saturating_sub(now));
    let n = (now + at).max(1) as f64;
    SchemePlan {
        now,
        more,
        width_at: Some(z * (v / n + u).sqrt()),
    }
}

/// The plans for half-width `w` at `z`. `labels`: the uniform lines'
/// (Y, Ŷ); `draws`: what the active plan learns from (the active line's
/// draws, or the labels read as uniform draws); `m` combinations whose
/// judge readings have variance `var_yhat`; `lambda` PPI++'s.
#[allow(clippy::too_many_arguments)]
pub fn plans(
    labels: &[(f64, f64)],
    draws: &[Seen],
    m: usize,
    var_yhat: f64,
    lambda: f64,
    z: f64,
    w: f64,
    at: usize,
) -> Plans {
    let n = labels.len();
    let big_m = m.max(1) as f64;
    let u = lambda * lambda * var_yhat / big_m;
    // Labels alone: p(1 − p), read as one more of each (never 0).
    let k: f64 = labels.iter().map(|l| l.0).sum();
    let p = (k + 1.0) / (n as f64 + 2.0);
    let alone = scheme(p * (1.0 - p), 0.0, n, z, w, at);
    let v_uniform = if n > 1 {
        let r: Vec<f64> = labels.iter().map(|(y, h)| y - lambda * h).collect();
        let mr = r.iter().sum::<f64>() / n as f64;
        let v = r.iter().map(|x| (x - mr) * (x - mr)).sum::<f64>() / n as f64;
        if v > 0.0 { v } else { p * (1.0 - p) }
    } else {
        p * (1.0 - p)
    };
    let uniform = scheme(v_uniform, u, n, z, w, at);
    let drawn: usize = draws.iter().map(|d| d.count as usize).sum();
    let active = if drawn > 1 {
        let weigh = |d: &Seen| (d.y - lambda * d.y_hat, f64::from(d.count), big_m * d.q);
        let second = mean(draws.iter().map(|d| {
            let (r, c, mq) = weigh(d);
            (r * r / (big_m * d.p_now * mq), c)
        }));
        let first = mean(draws.iter().map(|d| {
            let (r, c, mq) = weigh(d);
            (r / mq, c)
        }));
        let v = second - first * first;
        // Too few draws to see any spread: no claim of a gain.
        scheme(if v > 0.0 { v } else { v_uniform }, u, drawn, z, w, at)
    } else {
        scheme(v_uniform, u, drawn, z, w, at)
    };
    Plans {
        labels_alone: alone,
        uniform,
        active,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_draws_plan_as_uniform_ppi_and_sure_judges_gain_from_active() {
        // 40 labels, the judge right on 30; M = 1000.
        let labels: Vec<(f64, f64)> = (0..40)
            .map(|i| {
                (
                    f64::from(u8::from(i % 4 != 0)),
                    f64::from(u8::from(i % 8 != 0)),
                )
            })
            .collect();
        let m = 1000;
        let uniform_draws: Vec<Seen> = labels
            .iter()
            .map(|&(y, y_hat)| Seen {
                y,
                y_hat,
                q: 1.0 / 1000.0,
                p_now: 1.0 / 1000.0,
                count: 1,
            })
            .collect();
        let z = 1.959_963_984_540_054;
        let p = plans(&labels, &uniform_draws, m, 0.2, 1.0, z, 0.05, 100);
        // Drawing evenly, the active variance is the uniform one.
        let (a, u) = (p.active.more.unwrap(), p.uniform.more.unwrap());
        assert!(a.abs_diff(u) <= 1, "{a} vs {u}");
        // Labels alone: 1.96² · p(1 − p) / 0.05², p = 31/42.
        let pp = 31.0 / 42.0;
        let want = (z * z * pp * (1.0 - pp) / 0.0025).ceil() as usize - 40;
        assert_eq!(p.labels_alone.more, Some(want));
        // Where the judge is wrong (y ≠ ŷ) the active order draws 4× as
        // often: the residuals' variance falls.
        let skewed: Vec<Seen> = uniform_draws
            .iter()
            .map(|d| Seen {
                p_now: if d.y != d.y_hat {
                    4.0 / 1000.0
                } else {
                    0.8 / 1000.0
                },
                ..*d
            })
            .collect();
        let s = plans(&labels, &skewed, m, 0.2, 1.0, z, 0.05, 100);
        assert!(s.active.more.unwrap() < u, "{s:?}");
        assert!(s.active.width_at.unwrap() < s.uniform.width_at.unwrap());
    }
}

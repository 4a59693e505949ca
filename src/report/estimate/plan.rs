//! How many more labels an estimate needs: "label N more for an interval
//! of ±w". PPI++'s interval is `θ ± z·sqrt(var(Y − λŶ)/n + var(λŶu)/N)`, so
//! ±w needs `n ≥ var(Y − λŶ) / (w²/z² − var(λŶu)/N)` (λ = 0: labels
//! alone), the variances taken from the labels so far. That makes N an
//! estimate, and it is said to be one.

use crate::analytics::ppi::z_two_sided;
use serde::Serialize;

/// The half-width a plan aims for.
pub const PLAN_HALF_WIDTH: f64 = 0.05;

/// More labels for an interval of ±`half_width`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Plan {
    pub more: usize,
    pub half_width: f64,
}

fn var0(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = v.clone().count() as f64;
    let m = v.clone().sum::<f64>() / n;
    v.map(|x| (x - m) * (x - m)).sum::<f64>() / n
}

/// The plan for an estimate from `y`, `y_hat` (labelled) and `y_hat_u`;
/// `None` without labels, when the interval is already as narrow, or when
/// the unlabelled part alone is wider.
pub fn plan(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    lambda: Option<f64>,
    alpha: f64,
) -> Option<Plan> {
    let n = y.len();
    if n == 0 {
        return None;
    }
    // With few unlabelled combinations their own term can be wider than
    // ±w whatever the labels: then plan for the labels alone (λ = 0).
    match plan_with(y, y_hat, y_hat_u, lambda.unwrap_or(0.0), alpha) {
        Ok(p) => p,
        Err(Unreachable) => plan_with(y, y_hat, &[], 0.0, alpha).ok().flatten(),
    }
}

/// The unlabelled combinations' own term is wider than the target.
struct Unreachable;

fn plan_with(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    l: f64,
    alpha: f64,
) -> Result<Option<Plan>, Unreachable> {
    let n = y.len();
    let z = z_two_sided(alpha);
    let mut v = var0(y.iter().zip(y_hat).map(|(a, b)| a - l * b));
    if v <= 0.0 {
        // Labels that never vary say nothing of the variance: read them as
        // one more of each (a rate of (k + 1)/(n + 2)).
        let p = (y.iter().sum::<f64>() + 1.0) / (n as f64 + 2.0);
        v = p * (1.0 - p);
    }
    let u = if y_hat_u.is_empty() || l == 0.0 {
        0.0
    } else {
        var0(y_hat_u.iter().map(|b| l * b)) / y_hat_u.len() as f64
    };
    let w = PLAN_HALF_WIDTH;
    let now = z * (v / n as f64 + u).sqrt();
    if now <= w {
        return Ok(None);
    }
    let room = w * w / (z * z) - u;
    if room <= 0.0 {
        return Err(Unreachable);
    }
    let needed = (v / room).ceil() as usize;
    Ok((needed > n).then(|| Plan {
        more: needed - n,
        half_width: w,
    }))
}

/// "label 312 more for an interval of ±0.05 (an estimate from the labels
/// so far)".
pub fn text(p: &Plan) -> String {
    format!(
        "label {} more for an interval of ±{:.2} (an estimate from the labels so far)",
        p.more, p.half_width
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_alone_need_z_squared_p_q_over_w_squared() {
        // 27 labels at 0.7: 1.96² · 0.21 / 0.05² ≈ 323 in all.
        let y: Vec<f64> = (0..27).map(|i| f64::from(u8::from(i % 10 < 7))).collect();
        let p = y.iter().sum::<f64>() / 27.0;
        let want = (z_two_sided(0.05).powi(2) * p * (1.0 - p) / 0.0025).ceil() as usize;
        let got = plan(&y, &y, &[], None, 0.05).unwrap();
        assert_eq!(got.more, want - 27);
        assert!(text(&got).contains("an estimate"));
    }
}

//! Prediction-powered inference of a mean (Angelopoulos et al. 2023; the
//! power-tuned PPI++ of Angelopoulos, Duchi and Zrnic 2023), as `ppi_py`
//! 0.2.3 computes it: `ppi_mean_pointestimate`, `ppi_mean_ci` with
//! `lam=None`, and `classical_mean_ci`.
//!
//! Here the mean is the classifier's accuracy as people would judge it:
//! `y` are people's readings (1 right, 0 wrong) on n labelled combinations,
//! `y_hat` the judge's readings on the same n, `y_hat_u` the judge's on the
//! N combinations no person labelled. The interval stays valid when the
//! judge is biased (the labelled part corrects it), provided the labelled
//! combinations are a random sample of all of them.

use serde::Serialize;

/// A point estimate and its two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanEstimate {
    pub estimate: f64,
    pub ci: [f64; 2],
}

/// The PPI++ estimate with its power-tuning λ (0: labels alone, 1: plain PPI).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PpiEstimate {
    pub estimate: f64,
    pub ci: [f64; 2],
    pub lambda: f64,
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Variance with `ddof` degrees of freedom removed (numpy's `var`).
fn var(x: &[f64], ddof: f64) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() as f64 - ddof)
}

/// z for a two-sided interval at level 1 − alpha: Φ⁻¹(1 − alpha/2).
pub fn z_two_sided(alpha: f64) -> f64 {
    normal_quantile(1.0 - alpha / 2.0)
}

/// `mean(y) ± z·sd0(y)/√n` (`classical_mean_ci`). `None` for no data or an
/// alpha outside (0, 1).
pub fn classical_mean_ci(y: &[f64], alpha: f64) -> Option<MeanEstimate> {
    if y.is_empty() || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let z = z_two_sided(alpha);
    if !z.is_finite() {
        return None;
    }
    let m = mean(y);
    let half = z * (var(y, 0.0) / y.len() as f64).sqrt();
    Some(MeanEstimate {
        estimate: m,
        ci: [m - half, m + half],
    })
}

/// The power-tuning λ of PPI++ for a mean, clipped to [0, 1]:
/// `cov0(y, ŷ) / ((1 + n/N) · var1([ŷ; ŷu]))`. Where the judge's readings
/// never vary the ratio is 0/0 (ppi_py gives NaN); λ is then 0, the labels
/// alone, since the judge carries no information.
pub fn ppi_lambda(y: &[f64], y_hat: &[f64], y_hat_u: &[f64]) -> f64 {
    let (n, big_n) = (y.len() as f64, y_hat_u.len() as f64);
    let (my, mh) = (mean(y), mean(y_hat));
    let cov0 = y
        .iter()
        .zip(y_hat)
        .map(|(a, b)| (a - my) * (b - mh))
        .sum::<f64>()
        / n;
    let all: Vec<f64> = y_hat.iter().chain(y_hat_u).copied().collect();
    let denom = (1.0 + n / big_n) * var(&all, 1.0);
    if denom <= 0.0 || !denom.is_finite() {
        return 0.0;
    }
    (cov0 / denom).clamp(0.0, 1.0)
}

/// The PPI estimate and interval for a given λ (`ppi_mean_ci` with `lam`).
pub fn ppi_mean_ci_with(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    alpha: f64,
    lambda: f64,
) -> Option<PpiEstimate> {
    if y.is_empty() || y.len() != y_hat.len() || y_hat_u.is_empty() {
        return None;
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let (n, big_n) = (y.len() as f64, y_hat_u.len() as f64);
    let rectifier: Vec<f64> = y.iter().zip(y_hat).map(|(a, b)| a - lambda * b).collect();
    let imputed: Vec<f64> = y_hat_u.iter().map(|b| lambda * b).collect();
    let estimate = mean(&imputed) + mean(&rectifier);
    let se = (var(&imputed, 0.0) / big_n + var(&rectifier, 0.0) / n).sqrt();
    let z = z_two_sided(alpha);
    if !z.is_finite() {
        // 1 − α/2 rounds to 1 (α below ~1e-16): no quantile, no interval.
        return None;
    }
    let half = z * se;
    Some(PpiEstimate {
        estimate,
        ci: [estimate - half, estimate + half],
        lambda,
    })
}

/// PPI++ (`ppi_mean_pointestimate` and `ppi_mean_ci` with `lam=None`): λ
/// tuned from the data, then the estimate and its interval (not clipped to
/// [0, 1], as ppi_py). `None` without labelled or unlabelled data.
pub fn ppi_mean_ci(y: &[f64], y_hat: &[f64], y_hat_u: &[f64], alpha: f64) -> Option<PpiEstimate> {
    if y.is_empty() || y.len() != y_hat.len() || y_hat_u.is_empty() {
        return None;
    }
    ppi_mean_ci_with(y, y_hat, y_hat_u, alpha, ppi_lambda(y, y_hat, y_hat_u))
}

/// Φ⁻¹(p), the standard normal quantile, by Wichura's AS 241 (PPND16):
/// about 1e-16 relative error on (0, 1). NaN outside (0, 1).
// The coefficients are written as the algorithm publishes them.
#[allow(
    clippy::inconsistent_digit_grouping,
    clippy::excessive_precision,
    clippy::unreadable_literal
)]
pub fn normal_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q
            * (((((((r * 2509.080_928_730_122_7 + 33430.575_583_588_128) * r
                + 67265.770_927_008_7)
                * r
                + 45921.953_931_549_87)
                * r
                + 13731.693_765_509_461)
                * r
                + 1971.590_950_306_551_3)
                * r
                + 133.141_667_891_784_38)
                * r
                + 3.387_132_872_796_366_5)
            / (((((((r * 5226.495_278_852_545 + 28729.085_735_721_943) * r
                + 39307.895_800_092_71)
                * r
                + 21213.794_301_586_597)
                * r
                + 5394.196_021_424_751)
                * r
                + 687.187_007_492_057_9)
                * r
                + 42.313_330_701_600_91)
                * r
                + 1.0);
    }
    let r0 = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r0.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        (((((((r * 7.745_450_142_783_414e-4 + 0.022_723_844_989_269_184) * r
            + 0.241_780_725_177_450_6)
            * r
            + 1.270_458_252_452_368_4)
            * r
            + 3.647_848_324_763_204_5)
            * r
            + 5.769_497_221_460_691)
            * r
            + 4.630_337_846_156_546)
            * r
            + 1.423_437_110_749_683_5)
            / (((((((r * 1.050_750_071_644_416_9e-9 + 5.475_938_084_995_345e-4) * r
                + 0.015_198_666_563_616_457)
                * r
                + 0.148_103_976_427_480_08)
                * r
                + 0.689_767_334_985_1)
                * r
                + 1.676_384_830_183_803_8)
                * r
                + 2.053_191_626_637_759)
                * r
                + 1.0)
    } else {
        let r = r - 5.0;
        (((((((r * 2.010_334_399_292_288e-7 + 2.711_555_568_743_487_6e-5) * r
            + 0.001_242_660_947_388_078_4)
            * r
            + 0.026_532_189_526_576_124)
            * r
            + 0.296_560_571_828_504_9)
            * r
            + 1.784_826_539_917_291_3)
            * r
            + 5.463_784_911_164_114)
            * r
            + 6.657_904_643_501_103)
            / (((((((r * 2.044_263_103_389_939_7e-15 + 1.421_511_758_316_446e-7) * r
                + 1.846_318_317_510_054_8e-5)
                * r
                + 7.868_691_311_456_133e-4)
                * r
                + 0.014_875_361_290_850_615)
                * r
                + 0.136_929_880_922_735_8)
                * r
                + 0.599_832_206_555_888)
                * r
                + 1.0)
    };
    if q < 0.0 { -x } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(bits: &[u8]) -> Vec<f64> {
        bits.iter().map(|&b| f64::from(b)).collect()
    }

    /// The fixture of docs/design.md §7.10, computed with ppi-python 0.2.3.
    #[test]
    fn matches_ppi_python_on_the_fixture() {
        let y = v(&[1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1]);
        let yh = v(&[1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1]);
        let yu = v(&[
            1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1,
            1,
        ]);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        let p = ppi_mean_ci(&y, &yh, &yu, 0.1).unwrap();
        close(p.lambda, 0.431397306397306);
        close(p.estimate, 0.771569865319865);
        close(p.ci[0], 0.591115962226891);
        close(p.ci[1], 0.95202376841284);
        // Given to eight places in docs/design.md §7.10.
        let p = ppi_mean_ci(&y, &yh, &yu, 0.05).unwrap();
        assert!((p.ci[0] - 0.55654578).abs() < 5e-9 && (p.ci[1] - 0.98659395).abs() < 5e-9);
        let plain = ppi_mean_ci_with(&y, &yh, &yu, 0.1, 1.0).unwrap();
        close(plain.estimate, 0.8);
        close(plain.ci[0], 0.571950537149283);
        close(plain.ci[1], 1.028049462850718);
        let h = classical_mean_ci(&y, 0.1).unwrap();
        close(h.ci[0], 0.544393296631066);
        close(h.ci[1], 0.955606703368934);
    }

    #[test]
    fn normal_quantiles() {
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-14);
        assert!((normal_quantile(0.95) - 1.644_853_626_951_472_2).abs() < 1e-14);
        assert!((normal_quantile(1e-10) + 6.361_340_902_404_056).abs() < 1e-12);
        assert!((normal_quantile(0.3) + 0.524_400_512_708_040_9).abs() < 1e-14);
        assert!((normal_quantile(1e-300) + 37.047_096_299_361_2).abs() < 1e-9);
        assert!(normal_quantile(0.0).is_nan() && normal_quantile(1.0).is_nan());
    }

    #[test]
    fn degenerate_data_give_none_or_labels_alone() {
        assert!(ppi_mean_ci(&[], &[], &[1.0], 0.05).is_none());
        assert!(ppi_mean_ci(&[1.0], &[1.0], &[], 0.05).is_none());
        assert!(classical_mean_ci(&[1.0], 1.5).is_none());
        // A judge that always says right: no information, λ = 0.
        let y = v(&[1, 0, 1, 1]);
        let p = ppi_mean_ci(&y, &[1.0; 4], &[1.0; 10], 0.05).unwrap();
        assert_eq!(p.lambda, 0.0);
        assert!((p.estimate - 0.75).abs() < 1e-12);
    }
}

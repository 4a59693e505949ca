//! A judge's errors in the user's terms (issue #30 §5) against
//! `judge_errors.py` beside this file: scipy's exact lower bounds, the
//! Rogan–Gladen formula, `judgy` 0.1.0's bootstrap and numpy's bootstrap
//! over both the labelled and the unlabelled set.

use jury::report::estimate::judge_errors::{NO_BETTER_THAN_CHANCE, judge_errors, rogan_gladen};

/// The data `judge_errors.py` builds, by the same rules.
fn data() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let y: Vec<f64> = (0..80)
        .map(|i| f64::from(u8::from(i * 37 % 100 < 70)))
        .collect();
    let yh: Vec<f64> = (0..80)
        .map(|i| {
            let right = if y[i] == 1.0 {
                i * 53 % 100 < 90
            } else {
                i * 29 % 100 >= 75
            };
            f64::from(u8::from(right))
        })
        .collect();
    let yu: Vec<f64> = (0..400)
        .map(|i| f64::from(u8::from(i * 61 % 100 < 68)))
        .collect();
    (y, yh, yu)
}

#[test]
fn rates_bounds_and_the_corrected_rate_match_scipy_and_judgy() {
    let (y, yh, yu) = data();
    let e = judge_errors(&y, &yh, &yu, 0.05, 42);
    assert_eq!((e.people_right, e.people_wrong), (56, 24));
    let close = |a: Option<f64>, b: f64, tol: f64| {
        let a = a.expect("a value");
        assert!((a - b).abs() < tol, "{a} vs {b}");
    };
    close(e.true_positive_rate, 0.892857142857143, 1e-12);
    close(e.true_negative_rate, 0.666666666666667, 1e-12);
    // scipy.stats.beta.ppf(0.05, k, n - k + 1).
    close(e.true_positive_lower, 0.799445324293411, 1e-9);
    close(e.true_negative_lower, 0.478577105192993, 1e-9);
    close(e.judge_rate, 0.6875, 1e-12);
    // The formula, and judgy's point estimate (its unlabelled set: every
    // judged combination).
    close(e.corrected, 0.632978723404255, 1e-12);
    close(e.rho, 0.574239243748679, 1e-12);
    close(e.most_worth_labels, 1.491982182628064, 1e-9);
    let [lo, hi] = e.corrected_ci.expect("an interval");
    // numpy, both sets resampled (20 000 resamples): [0.432029, 0.771048].
    assert!((lo - 0.432029).abs() < 0.015, "{lo}");
    assert!((hi - 0.771048).abs() < 0.015, "{hi}");
    // judgy resamples the labelled set alone: [0.420504, 0.772590].
    assert!((lo - 0.420504).abs() < 0.03 && (hi - 0.772590).abs() < 0.03);
}

#[test]
fn a_judge_no_better_than_chance_has_no_corrected_rate() {
    let (y, _, yu) = data();
    // A judge that answers the opposite of people half the time on each side.
    let yh: Vec<f64> = (0..y.len())
        .map(|i| f64::from(u8::from(i % 2 == 0)))
        .collect();
    let e = judge_errors(&y, &yh, &yu, 0.05, 42);
    let sum = e.true_positive_rate.unwrap() + e.true_negative_rate.unwrap();
    assert!(sum <= 1.0, "{sum}");
    assert_eq!((e.corrected, e.corrected_ci), (None, None));
    assert_eq!(e.corrected_not, Some(NO_BETTER_THAN_CHANCE));
    assert_eq!(rogan_gladen(0.7, 0.5, 0.5), None);
}

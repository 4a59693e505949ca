//! Agreement figures against scikit-learn, scipy, `krippendorff` and numpy,
//! published worked examples, the bootstrap's PRNG, degenerate and large
//! inputs, and Wilson intervals against statsmodels.

use super::*;

#[test]
fn figures_match_reference_implementations() {
    for (name, d) in ALL {
        let (p, k) = (d.pairs, d.k);
        close(
            name,
            "percent",
            percent_agreement(p, k),
            d.percent_agreement,
        );
        close(name, "within_one", within_one(p, k), d.within_one);
        close(name, "mad", mean_abs_diff(p, k), d.mean_abs_diff);
        close(name, "kappa", cohen_kappa(p, k), d.cohen_kappa);
        close(
            name,
            "kappa_linear",
            weighted_kappa_linear(p, k),
            d.kappa_linear,
        );
        close(
            name,
            "kappa_quadratic",
            weighted_kappa_quadratic(p, k),
            d.kappa_quadratic,
        );
        close(
            name,
            "alpha_nominal",
            krippendorff_alpha_nominal(p, k),
            d.alpha_nominal,
        );
        close(
            name,
            "alpha_ordinal",
            krippendorff_alpha_ordinal(p, k),
            d.alpha_ordinal,
        );
        close(
            name,
            "alpha_interval",
            krippendorff_alpha_interval(p, k),
            d.alpha_interval,
        );
        close(name, "spearman", spearman(p, k), d.spearman);
        let m = ConfusionMatrix::from_pairs(p, k).unwrap();
        let want: Vec<Vec<u64>> = d.confusion.iter().map(|r| r.to_vec()).collect();
        assert_eq!(m.rows(), want, "{name} confusion");
    }
}

#[test]
fn figures_struct_matches_reference() {
    for (name, d) in ALL {
        let ordinal = !matches!(
            name,
            "BINARY24" | "KRIPP2011_A" | "KRIPP2011_B" | "WIKI_KAPPA"
        );
        let f = Figures::compute(d.pairs, d.k, ordinal, 50, 1).unwrap();
        assert_eq!(f.n, d.pairs.len());
        close(
            name,
            "percent",
            f.percent_agreement.value,
            d.percent_agreement,
        );
        close(name, "kappa", f.cohen_kappa.value, d.cohen_kappa);
        if ordinal {
            close(name, "within_one", f.within_one.value, d.within_one);
            close(name, "mad", f.mean_abs_diff.value, d.mean_abs_diff);
            close(
                name,
                "kappa_quadratic",
                f.weighted_kappa_quadratic.value,
                d.kappa_quadratic,
            );
            close(name, "alpha", f.krippendorff_alpha.value, d.alpha_ordinal);
            close(name, "spearman", f.spearman.value, d.spearman);
        } else {
            assert_eq!(f.within_one, Figure::NONE);
            assert_eq!(f.spearman, Figure::NONE);
            close(name, "alpha", f.krippendorff_alpha.value, d.alpha_nominal);
        }
        let want: Vec<Vec<u64>> = d.confusion.iter().map(|r| r.to_vec()).collect();
        assert_eq!(f.confusion_matrix, want, "{name}");
    }
}

#[test]
fn published_worked_examples() {
    // Krippendorff (2011), sections A and B: alpha = 0.095 and 0.692.
    let a = krippendorff_alpha_nominal(KRIPP2011_A.pairs, 2).unwrap();
    assert!((a - 0.095).abs() < 5e-4, "{a}");
    let b = krippendorff_alpha_nominal(KRIPP2011_B.pairs, 5).unwrap();
    assert!((b - 0.692).abs() < 5e-4, "{b}");
    // Wikipedia's Cohen's kappa example: p_o = 0.7, kappa = 0.4.
    assert!((cohen_kappa(WIKI_KAPPA.pairs, 2).unwrap() - 0.4).abs() < 1e-12);
    assert!((percent_agreement(WIKI_KAPPA.pairs, 2).unwrap() - 0.7).abs() < 1e-12);
}

#[test]
fn evalgen_matches_sklearn() {
    let pairs: Vec<(bool, bool)> = EVALGEN_JUDGE
        .iter()
        .zip(EVALGEN_HUMAN)
        .map(|(&j, &h)| (j == 1, h == 1))
        .collect();
    let e = evalgen(&pairs);
    let [tp, fp, fn_, tn] = EVALGEN_COUNTS;
    assert_eq!(
        (
            e.true_positives,
            e.false_positives,
            e.false_negatives,
            e.true_negatives
        ),
        (tp, fp, fn_, tn)
    );
    close("evalgen", "coverage", e.coverage, Some(EVALGEN_COVERAGE));
    close("evalgen", "ffr", e.false_failure_rate, Some(EVALGEN_FFR));
    close("evalgen", "precision", e.precision, Some(EVALGEN_PRECISION));
    close("evalgen", "alignment", e.alignment, Some(EVALGEN_ALIGNMENT));
}

#[test]
fn bootstrap_matches_python_port_of_the_prng() {
    let mut rng = Xoshiro256pp::for_stream(BOOT_SEED, 0);
    let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(first, STREAM0_FIRST);
    let (p, k) = (LIKERT30.pairs, LIKERT30.k);
    let pa = bootstrap_ci(p, k, percent_agreement, 200, BOOT_SEED).unwrap();
    assert!(
        (pa.0 - BOOT_PERCENT.0).abs() < TOL && (pa.1 - BOOT_PERCENT.1).abs() < TOL,
        "{pa:?}"
    );
    let kq = bootstrap_ci(p, k, weighted_kappa_quadratic, 200, BOOT_SEED).unwrap();
    assert!(
        (kq.0 - BOOT_KAPPA_QUADRATIC.0).abs() < TOL && (kq.1 - BOOT_KAPPA_QUADRATIC.1).abs() < TOL,
        "{kq:?}"
    );
    let f = Figures::compute(p, k, true, 200, BOOT_SEED).unwrap();
    // The report's kappa reads the same resamples' BCa ends (a percentile
    // interval under-covered where kappa is skewed: `analytics::bca`).
    assert_eq!(f.weighted_kappa_quadratic.ci_method, Some(CiMethod::Bca));
    let [lo, hi] = f.weighted_kappa_quadratic.ci95.expect("an interval");
    let v = f.weighted_kappa_quadratic.value.expect("a value");
    assert!(lo <= v && v <= hi && (lo - kq.0).abs() < 0.1 && (hi - kq.1).abs() < 0.1);
    // A share in the report takes the exact interval, not the percentile
    // bootstrap.
    let hits = p.iter().filter(|(a, b)| a == b).count() as u64;
    assert_eq!(f.percent_agreement.ci95, exact_share(hits, p.len() as u64));
}

#[test]
fn from_values_to_figures() {
    let values: Vec<(Value, Value)> = LIKERT30
        .pairs
        .iter()
        .map(|&(a, b)| (Value::Likert(a + 1), Value::Likert(b + 1)))
        .collect();
    let (pairs, k, ordinal) = pairs_from_values(&values);
    assert_eq!((pairs.as_slice(), k, ordinal), (LIKERT30.pairs, 5, true));
    // Cross-scale reading: Likert 4-5 AGREE, 1-2 DISAGREE, 3 undecided.
    let cross = agreement_pairs(&values);
    let undecided = LIKERT30
        .pairs
        .iter()
        .filter(|(a, b)| *a == 2 || *b == 2)
        .count();
    assert_eq!(cross.undecided, undecided);
    assert_eq!(cross.pairs.len() + undecided, values.len());
    let readings: Vec<Option<Agreement>> = values.iter().map(|(a, _)| a.as_agreement()).collect();
    let acc = AccuracyEstimate::from_readings(&readings);
    let agree = LIKERT30.pairs.iter().filter(|(a, _)| *a >= 3).count() as f64;
    let decided = LIKERT30.pairs.iter().filter(|(a, _)| *a != 2).count() as f64;
    close("accuracy", "share", acc.accuracy, Some(agree / decided));
}

#[test]
fn degenerate_cases_are_defined() {
    type Stat = fn(&[(u8, u8)], usize) -> Option<f64>;
    let all: [(&str, Stat); 10] = [
        ("percent", percent_agreement),
        ("within_one", within_one),
        ("mad", mean_abs_diff),
        ("kappa", cohen_kappa),
        ("kappa_linear", weighted_kappa_linear),
        ("kappa_quadratic", weighted_kappa_quadratic),
        ("alpha_nominal", krippendorff_alpha_nominal),
        ("alpha_ordinal", krippendorff_alpha_ordinal),
        ("alpha_interval", krippendorff_alpha_interval),
        ("spearman", spearman),
    ];
    for (name, f) in all {
        // n = 0: nothing is defined.
        assert_eq!(f(&[], 5), None, "{name} n=0");
        // Invalid input (index >= k, k too large) is None, never a panic.
        assert_eq!(f(&[(0, 5)], 5), None, "{name} out of range");
        assert_eq!(f(&[(0, 0)], 0), None, "{name} k=0");
        assert_eq!(f(&[(0, 0)], 1000), None, "{name} k>256");
        // Results are never NaN or infinite.
        for p in [
            &[(2u8, 2u8)][..],
            &[(0, 4)],
            &[(1, 1), (1, 1), (1, 1)],
            &[(0, 1), (0, 1)],
            &[(0, 0), (4, 4)],
            &[(0, 4), (4, 0)],
        ] {
            if let Some(v) = f(p, 5) {
                assert!(v.is_finite(), "{name} {p:?} gave {v}");
            }
        }
    }
    // One category only (all ties): raw figures defined, chance-corrected None.
    let same = [(3u8, 3u8); 6];
    assert_eq!(percent_agreement(&same, 5), Some(1.0));
    assert_eq!(mean_abs_diff(&same, 5), Some(0.0));
    assert_eq!(cohen_kappa(&same, 5), None);
    assert_eq!(weighted_kappa_quadratic(&same, 5), None);
    assert_eq!(krippendorff_alpha_ordinal(&same, 5), None);
    assert_eq!(spearman(&same, 5), None);
    // n = 1, disagreeing: kappa 0, alpha 0 (nominal), Spearman None.
    assert_eq!(cohen_kappa(&[(0, 1)], 2), Some(0.0));
    assert_eq!(krippendorff_alpha_nominal(&[(0, 1)], 2), Some(0.0));
    assert_eq!(spearman(&[(0, 1)], 2), None);
    // Perfect agreement with variation is exactly 1 everywhere.
    let perfect = [(0u8, 0u8), (2, 2), (4, 4), (1, 1)];
    for (name, f) in [
        ("kappa", cohen_kappa as Stat),
        ("kappa_quadratic", weighted_kappa_quadratic),
        ("alpha_ordinal", krippendorff_alpha_ordinal),
        ("spearman", spearman),
    ] {
        assert_eq!(f(&perfect, 5), Some(1.0), "{name}");
    }
    // Degenerate EvalGen and accuracy: None, not NaN.
    let e = evalgen(&[(false, false)]);
    assert_eq!((e.coverage, e.precision, e.alignment), (None, None, None));
    assert_eq!(e.false_failure_rate, Some(0.0));
}

#[test]
fn large_input_completes_with_intervals() {
    // 1e6 pairs with the recommended resample count (200; 5 in debug builds).
    // How fast is `cargo bench --bench bounds -- figures_1m` (target < 2 s
    // on an idle 2-core machine in release; 2.4 ms measured 2026-11-24).
    let n = 1_000_000usize;
    let mut rng = Xoshiro256pp::seed_from_u64(5);
    let pairs: Vec<(u8, u8)> = (0..n)
        .map(|_| {
            let a = rng.below(5) as u8;
            let b = if rng.below(10) < 7 {
                a
            } else {
                rng.below(5) as u8
            };
            (a, b)
        })
        .collect();
    let resamples = if cfg!(debug_assertions) {
        5
    } else {
        recommended_resamples(n)
    };
    let f = Figures::compute(&pairs, 5, true, resamples, 9).unwrap();
    assert_eq!(f.n, n);
    assert!(f.cohen_kappa.ci95.is_some());
}

#[test]
fn wilson_intervals_match_statsmodels() {
    for &(s, n, lo, hi) in WILSON {
        let [a, b] = wilson(s, n).unwrap();
        assert!(
            (a - lo).abs() < 1e-12 && (b - hi).abs() < 1e-12,
            "{s}/{n}: [{a}, {b}] vs [{lo}, {hi}]"
        );
    }
    // The shares the report prints carry the exact interval instead
    // (Wilson's covered 92.8 % at 0.8 on 40: tests/reference/coverage.rs).
    let f = Figures::compute(&[(0, 0), (1, 1), (0, 1)], 2, false, 100, 1).unwrap();
    assert_eq!(f.percent_agreement.ci95, exact_share(2, 3));
    assert_eq!(
        f.percent_agreement.ci_method,
        Some(CiMethod::ClopperPearson)
    );
}

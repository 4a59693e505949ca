//! Fleiss' κ (generalised to missing ratings) and Krippendorff's α among
//! several raters, against `irrCAC` 0.4.4 (`CAC(df, categories=range(k),
//! digits=15).fleiss()`, unweighted and quadratic) and `krippendorff` 0.9.0
//! (`alpha(..., value_domain=range(k))`, nominal, ordinal, interval). The
//! constants and datasets are printed by `tests/reference/several_raters.py`
//! (`/work/refvenv/bin/python tests/reference/several_raters.py`).

use jury::analytics::{AlphaMetric, KappaWeights, SeveralRaters, UnitCounts};

struct Want {
    k: usize,
    fleiss: f64,
    fleiss_quadratic: f64,
    alpha_nominal: f64,
    alpha_ordinal: f64,
    alpha_interval: f64,
}

const KRIPPENDORFF_C: [&[i8]; 12] = [
    &[0, 0, -1, 0],
    &[1, 1, 2, 1],
    &[2, 2, 2, 2],
    &[2, 2, 2, 2],
    &[1, 1, 1, 1],
    &[0, 1, 2, 3],
    &[3, 3, 3, 3],
    &[0, 0, 1, 0],
    &[1, 1, 1, 1],
    &[-1, 4, 4, 4],
    &[-1, -1, 0, 0],
    &[-1, -1, 2, -1],
];
const KRIPPENDORFF_C_WANT: Want = Want {
    k: 5,
    fleiss: 0.761169275422411,
    fleiss_quadratic: 0.864935064935065,
    alpha_nominal: 0.743421052631579,
    alpha_ordinal: 0.8153875037548814,
    alpha_interval: 0.8491071428571428,
};
const BINARY_3: [&[i8]; 40] = [
    &[-1, 1, 1],
    &[1, 1, -1],
    &[0, 0, 0],
    &[0, -1, -1],
    &[0, 1, 0],
    &[1, 0, 0],
    &[1, -1, 1],
    &[-1, 1, 1],
    &[-1, -1, -1],
    &[0, 0, -1],
    &[0, 1, 0],
    &[0, 0, -1],
    &[-1, -1, 1],
    &[1, -1, 1],
    &[-1, 1, 1],
    &[0, 0, -1],
    &[1, -1, 1],
    &[-1, 1, 1],
    &[-1, -1, 0],
    &[0, 0, 0],
    &[1, 1, 1],
    &[-1, -1, -1],
    &[1, 1, 1],
    &[0, 0, 0],
    &[-1, 0, -1],
    &[-1, 1, 0],
    &[1, 1, 1],
    &[-1, 0, 0],
    &[1, 1, 1],
    &[-1, 1, -1],
    &[-1, 0, 0],
    &[0, 0, 0],
    &[0, 0, 0],
    &[1, -1, 1],
    &[0, 0, 0],
    &[-1, 1, 1],
    &[1, 1, 1],
    &[-1, -1, -1],
    &[-1, -1, 0],
    &[1, 1, 1],
];
const BINARY_3_WANT: Want = Want {
    k: 2,
    fleiss: 0.805884438142503,
    fleiss_quadratic: 0.805884438142503,
    alpha_nominal: 0.7931972789115647,
    alpha_ordinal: 0.7931972789115647,
    alpha_interval: 0.7931972789115647,
};
const LIKERT_5: [&[i8]; 35] = [
    &[3, -1, -1, 4, 1],
    &[0, -1, -1, 0, 0],
    &[-1, -1, 4, 3, 3],
    &[-1, 2, -1, -1, 4],
    &[1, -1, 0, 0, -1],
    &[0, 4, 4, -1, 4],
    &[-1, 3, 2, -1, -1],
    &[-1, -1, -1, 0, 0],
    &[0, -1, 0, -1, 0],
    &[0, 0, 0, 0, 1],
    &[-1, 4, -1, -1, 4],
    &[-1, -1, -1, -1, 2],
    &[3, 3, -1, 2, -1],
    &[-1, -1, -1, 4, 4],
    &[2, 0, -1, 1, 0],
    &[3, -1, -1, -1, -1],
    &[3, -1, -1, -1, -1],
    &[-1, 1, 1, -1, -1],
    &[-1, -1, 0, -1, 0],
    &[-1, -1, 0, -1, 1],
    &[-1, 0, -1, 0, 0],
    &[2, -1, -1, 1, -1],
    &[3, -1, -1, 3, 3],
    &[-1, -1, 4, 4, 4],
    &[4, 4, -1, 4, -1],
    &[-1, -1, 3, -1, -1],
    &[4, 4, -1, 4, 4],
    &[-1, 0, 0, -1, 0],
    &[-1, 0, 1, -1, -1],
    &[-1, 2, 2, 1, -1],
    &[3, -1, 3, 3, -1],
    &[0, 0, 0, 1, -1],
    &[4, 4, -1, -1, -1],
    &[-1, -1, 2, -1, 3],
    &[2, -1, -1, -1, -1],
];
const LIKERT_5_WANT: Want = Want {
    k: 5,
    fleiss: 0.49331516648216,
    fleiss_quadratic: 0.810658767391812,
    alpha_nominal: 0.49536166478626054,
    alpha_ordinal: 0.8056162875228927,
    alpha_interval: 0.8207374386619669,
};
const DEGREE_GAP: [&[i8]; 25] = [
    &[0, 2, 2, -1],
    &[0, 0, -1, -1],
    &[0, 0, 0, -1],
    &[0, -1, 0, 0],
    &[2, 0, -1, 2],
    &[-1, 2, 2, 0],
    &[2, 2, -1, -1],
    &[0, 2, 2, 2],
    &[2, 2, 0, -1],
    &[0, 0, 0, 0],
    &[0, 0, 2, 0],
    &[-1, 0, -1, 0],
    &[0, 0, -1, 0],
    &[-1, -1, -1, 2],
    &[2, 2, 2, 2],
    &[-1, 2, 2, 2],
    &[-1, 0, 0, 0],
    &[-1, 0, 0, 0],
    &[2, 2, 2, -1],
    &[2, 0, 0, 2],
    &[0, 2, -1, 2],
    &[2, 2, 2, 2],
    &[0, 0, 0, -1],
    &[-1, 2, -1, 2],
    &[0, 0, -1, 0],
];
const DEGREE_GAP_WANT: Want = Want {
    k: 3,
    fleiss: 0.582144767338207,
    fleiss_quadratic: 0.582144767338207,
    alpha_nominal: 0.5526960784313726,
    alpha_ordinal: 0.5526960784313726,
    alpha_interval: 0.5526960784313726,
};

/// Units as their ratings, the missing ones (-1) left out.
fn units(rows: &[&[i8]]) -> Vec<Vec<u8>> {
    rows.iter()
        .map(|r| r.iter().filter(|&&v| v >= 0).map(|&v| v as u8).collect())
        .collect()
}

fn check(name: &str, rows: &[&[i8]], want: &Want) {
    let u = UnitCounts::new(&units(rows), want.k).expect("valid dataset");
    let got = [
        (
            "fleiss",
            u.fleiss_kappa(KappaWeights::Unweighted),
            want.fleiss,
        ),
        (
            "fleiss quadratic",
            u.fleiss_kappa(KappaWeights::Quadratic),
            want.fleiss_quadratic,
        ),
        (
            "alpha nominal",
            u.krippendorff_alpha(AlphaMetric::Nominal),
            want.alpha_nominal,
        ),
        (
            "alpha ordinal",
            u.krippendorff_alpha(AlphaMetric::Ordinal),
            want.alpha_ordinal,
        ),
        (
            "alpha interval",
            u.krippendorff_alpha(AlphaMetric::Interval),
            want.alpha_interval,
        ),
    ];
    for (figure, got, want) in got {
        let got = got.unwrap_or_else(|| panic!("{name} {figure}: undefined"));
        assert!(
            (got - want).abs() < 1e-9,
            "{name} {figure}: jury {got}, reference {want}"
        );
    }
}

#[test]
fn fleiss_kappa_and_krippendorff_alpha_match_irrcac_and_krippendorff_with_missing_labels() {
    check("KRIPPENDORFF_C", &KRIPPENDORFF_C, &KRIPPENDORFF_C_WANT);
    check("BINARY_3", &BINARY_3, &BINARY_3_WANT);
    check("LIKERT_5", &LIKERT_5, &LIKERT_5_WANT);
    check("DEGREE_GAP", &DEGREE_GAP, &DEGREE_GAP_WANT);
}

/// Units nobody rated (all missing) change nothing, as irrCAC drops them.
#[test]
fn all_missing_units_are_dropped() {
    let mut rows: Vec<&[i8]> = BINARY_3.to_vec();
    rows.push(&[-1, -1, -1]);
    check("BINARY_3 + empty", &rows, &BINARY_3_WANT);
    let u = UnitCounts::new(&units(&rows), 2).unwrap();
    assert_eq!(u.n(), UnitCounts::new(&units(&BINARY_3), 2).unwrap().n());
}

/// The report's figures are the same functions, with a seeded bootstrap over
/// units around them.
#[test]
fn the_report_figures_are_the_reference_figures() {
    let u = UnitCounts::new(&units(&LIKERT_5), 5).unwrap();
    let s = SeveralRaters::compute(&u, AlphaMetric::Ordinal, 300, 42);
    assert!((s.krippendorff_alpha.value.unwrap() - LIKERT_5_WANT.alpha_ordinal).abs() < 1e-9);
    assert!((s.fleiss_kappa.value.unwrap() - LIKERT_5_WANT.fleiss).abs() < 1e-9);
    let [lo, hi] = s.krippendorff_alpha.ci95.expect("35 units, varied");
    assert!(lo < LIKERT_5_WANT.alpha_ordinal && LIKERT_5_WANT.alpha_ordinal < hi);
    assert_eq!(s, SeveralRaters::compute(&u, AlphaMetric::Ordinal, 300, 42));
}

//! Prediction-powered estimates against ppi_python on several studies (the
//! constants between the "generated PPI cases" markers are the output of
//! `tests/reference/ppi.py`), and their coverage in simulation.

use super::*;

/// One synthetic study and what ppi-python 0.2.3 computes on it.
struct PpiCase {
    name: &'static str,
    y: &'static [u8],
    y_hat: &'static [u8],
    y_hat_u: &'static [u8],
    lambda: f64,
    estimate: f64,
    ci95: [f64; 2],
    ci90: [f64; 2],
    human95: [f64; 2],
}

// ---- generated PPI cases ----
const PPI_CASES: &[PpiCase] = &[
    PpiCase {
        name: "biased_judge",
        y: &[
            0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1,
            0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1,
        ],
        y_hat: &[
            0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1,
            1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1,
        ],
        y_hat_u: &[
            0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1,
            1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
            1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0,
            1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0,
            1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1,
            0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1,
            1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1,
        ],
        lambda: 0.36758674431958005,
        estimate: 0.7150792592896399,
        ci95: [0.5958514663705397, 0.8343070522087401],
        ci90: [0.615020141283743, 0.8151383772955367],
        human95: [0.6158104392212133, 0.8841895607787867],
    },
    PpiCase {
        name: "good_judge",
        y: &[
            1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1,
            1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1,
            0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1,
            1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        ],
        y_hat: &[
            1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1,
            1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0,
            0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1,
            1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        ],
        y_hat_u: &[
            1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1,
            0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0,
            0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0,
            0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1,
            0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0,
            1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1,
            1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1,
            1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1,
            0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1,
            0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1,
            0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1,
            0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1,
            1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0,
            0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1,
            0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0,
            1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0,
            1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1,
            0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1,
            0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1,
            1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0,
            0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1,
            1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
            1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1,
            0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1,
            1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0,
            1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1,
            1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1,
            1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0,
            0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1,
            0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0,
            0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0,
            0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1,
            1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0,
            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0,
            0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1,
        ],
        lambda: 0.7868557919621741,
        estimate: 0.5610159810874704,
        ci95: [0.5050387608446092, 0.6169932013303316],
        ci90: [0.5140384169743528, 0.607993545200588],
        human95: [0.45249302291006066, 0.6475069770899394],
    },
    PpiCase {
        name: "noise_judge",
        y: &[
            1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1,
            0,
        ],
        y_hat: &[
            0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1,
            0,
        ],
        y_hat_u: &[
            0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1,
            0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0,
            1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0,
            0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1,
            1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0,
            0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1,
            0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0,
            1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1,
            0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0,
            1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0,
            0, 0, 0, 1, 0, 1, 0, 1, 1, 0,
        ],
        lambda: 0.07263762143067416,
        estimate: 0.6236483171425768,
        ci95: [0.4517685529736729, 0.7955280813114808],
        ci90: [0.4794022719484705, 0.7678943623366832],
        human95: [0.46089280214294037, 0.8057738645237262],
    },
    PpiCase {
        name: "few_labels",
        y: &[0, 1, 1, 0, 0, 1, 0, 0],
        y_hat: &[1, 1, 1, 0, 1, 1, 0, 0],
        y_hat_u: &[
            1, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0,
            1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1,
            1, 0,
        ],
        lambda: 0.49286181342632945,
        estimate: 0.3298210004359199,
        ci95: [0.05199014289669651, 0.6076518579751433],
        ci90: [0.09665799473422498, 0.5629840061376148],
        human95: [0.03952609805303303, 0.710473901946967],
    },
];

// ---- end generated PPI cases ----

#[test]
fn ppi_matches_ppi_python_on_several_studies() {
    use jury::analytics::ppi::*;
    let f = |b: &[u8]| b.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    for c in PPI_CASES {
        let (y, yh, yu) = (f(c.y), f(c.y_hat), f(c.y_hat_u));
        let close = |what: &str, a: f64, b: f64| {
            assert!((a - b).abs() < 1e-9, "{} {what}: {a} vs {b}", c.name)
        };
        let p = ppi_mean_ci(&y, &yh, &yu, 0.05).unwrap();
        close("lambda", p.lambda, c.lambda);
        close("estimate", p.estimate, c.estimate);
        close("ci95 lo", p.ci[0], c.ci95[0]);
        close("ci95 hi", p.ci[1], c.ci95[1]);
        let p = ppi_mean_ci(&y, &yh, &yu, 0.1).unwrap();
        close("ci90 lo", p.ci[0], c.ci90[0]);
        close("ci90 hi", p.ci[1], c.ci90[1]);
        let h = classical_mean_ci(&y, 0.05).unwrap();
        close("human lo", h.ci[0], c.human95[0]);
        close("human hi", h.ci[1], c.human95[1]);
    }
}

/// A uniform draw in [0, 1) from jury's generator.
fn unit(rng: &mut Xoshiro256pp) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Simulation, fixed seed: over 500 synthetic studies with known truth and
/// a judge that is right 85 % of the time and says "right" a further 20 %
/// of the time regardless (biased), the 95 % PPI++ interval covers the true
/// accuracy in at least 93 % of them — and so does the labels-alone one.
#[test]
fn ppi_intervals_cover_the_truth_in_simulation() {
    use jury::analytics::ppi::*;
    let (studies, n, big_n) = (500, 100, 1000);
    let (mut covered, mut human_covered, mut narrower) = (0, 0, 0);
    for s in 0..studies {
        let mut rng = Xoshiro256pp::for_stream(20261126, s);
        let truth = 0.55 + 0.3 * unit(&mut rng);
        let draw = |rng: &mut Xoshiro256pp| {
            let y = f64::from(u8::from(unit(rng) < truth));
            let read = if unit(rng) < 0.85 { y } else { 1.0 - y };
            let judge = if unit(rng) < 0.2 { 1.0 } else { read };
            (y, judge)
        };
        let labelled: Vec<(f64, f64)> = (0..n).map(|_| draw(&mut rng)).collect();
        let y_hat_u: Vec<f64> = (0..big_n).map(|_| draw(&mut rng).1).collect();
        let y: Vec<f64> = labelled.iter().map(|p| p.0).collect();
        let y_hat: Vec<f64> = labelled.iter().map(|p| p.1).collect();
        let p = ppi_mean_ci(&y, &y_hat, &y_hat_u, 0.05).unwrap();
        let h = classical_mean_ci(&y, 0.05).unwrap();
        covered += usize::from(p.ci[0] <= truth && truth <= p.ci[1]);
        human_covered += usize::from(h.ci[0] <= truth && truth <= h.ci[1]);
        narrower += usize::from(p.ci[1] - p.ci[0] < h.ci[1] - h.ci[0]);
    }
    let share = |k: usize| k as f64 / studies as f64;
    eprintln!(
        "PPI++ covered {covered}/{studies}, labels alone {human_covered}, PPI narrower {narrower}"
    );
    assert!(share(covered) >= 0.93, "PPI++ covered {covered}/{studies}");
    assert!(
        share(human_covered) >= 0.93,
        "labels alone covered {human_covered}/{studies}"
    );
    // The judge carries information: PPI++ is narrower in most studies.
    assert!(share(narrower) >= 0.8, "narrower in {narrower}/{studies}");
}

/// Simulation, fixed seed: over 500 synthetic studies of 1 000 calibration
/// pairs, an over-confident judge (right with probability c^1.5, not c), the
/// threshold `jury trust` picks at α = δ = 0.1 keeps the trusted verdicts'
/// agreement on 5 000 fresh items at ≥ 1 − α in at least 1 − δ − 0.03 of
/// the studies (no threshold: nothing is trusted, which keeps the promise).
#[test]
fn trusted_verdicts_keep_their_promise_in_simulation() {
    use jury::analytics::trust::*;
    let (studies, alpha, delta) = (500u64, 0.1, 0.1);
    let mut kept = 0;
    let mut found = 0;
    for s in 0..studies {
        let mut rng = Xoshiro256pp::for_stream(7, s);
        let pair = |rng: &mut Xoshiro256pp| {
            let c = 0.5 + 0.5 * unit(rng);
            (c, unit(rng) < c.powf(1.5))
        };
        let calibration: Vec<(f64, bool)> = (0..1000).map(|_| pair(&mut rng)).collect();
        let t = trust_threshold(&calibration, alpha, delta, 30);
        let Some(lambda) = t.threshold else {
            kept += 1;
            continue;
        };
        found += 1;
        let fresh: Vec<(f64, bool)> = (0..5000).map(|_| pair(&mut rng)).collect();
        let trusted: Vec<bool> = fresh
            .iter()
            .filter(|p| p.0 >= lambda)
            .map(|p| p.1)
            .collect();
        let agree = trusted.iter().filter(|&&a| a).count() as f64 / trusted.len().max(1) as f64;
        kept += usize::from(trusted.is_empty() || agree >= 1.0 - alpha);
    }
    assert!(
        found > studies as usize / 2,
        "a threshold was found in {found}/{studies}"
    );
    let share = kept as f64 / studies as f64;
    eprintln!("trust: a threshold in {found}/{studies}; the promise kept in {kept}/{studies}");
    assert!(
        share >= 1.0 - delta - 0.03,
        "kept the promise in {kept}/{studies}"
    );
}

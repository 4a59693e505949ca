//! Seeded studies for the active estimate (issue #33), shared by the
//! coverage test (`active_coverage.rs`) and the table of
//! `COVERAGE_ONLY=active cargo bench --bench coverage`.
//!
//! A study: M = 1 000 combinations, the classifier right on each with
//! probability `accuracy` (the truth is the share right among the M). The
//! judge's verdict is right with probability c = 1 − U²/2 (U uniform:
//! mostly sure, right 83 % of the time in all); it reports the chance the
//! classifier was right:
//! - calibrated: exactly (Bayes, the accuracy as the prior);
//! - over-confident: with three times the log-odds, so it looks sure
//!   where it is often wrong.
//!
//! Active: `budget·M` draws with replacement by jury's own probabilities
//! (`active_design::draw_probabilities`, its floor) and seeded draws, the
//! estimate `analytics::active`. Uniform: `budget·M` combinations
//! labelled at random (without replacement), PPI++ (`analytics::ppi`) on
//! the same population.
#![allow(dead_code)]

use jury::analytics::active::{Design, Draw, active_mean_ci};
use jury::analytics::active_design::{FLOOR, draw_probabilities, draws};
use jury::analytics::ppi::ppi_mean_ci;
use jury::rng::Xoshiro256pp;

pub const M: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Judge {
    Calibrated,
    OverConfident,
}

impl Judge {
    pub fn name(self) -> &'static str {
        match self {
            Judge::Calibrated => "calibrated",
            Judge::OverConfident => "over-confident",
        }
    }
}

fn unit(rng: &mut Xoshiro256pp) -> f64 {
    jury::rng::unit_f64(rng.next_u64())
}

/// One study's outcome: whether each interval held the truth, and its
/// half-width.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub active_cover: bool,
    pub active_half: f64,
    pub uniform_cover: bool,
    pub uniform_half: f64,
}

pub fn study(accuracy: f64, judge: Judge, budget: f64, seed: u64) -> Option<Outcome> {
    let mut rng = Xoshiro256pp::for_stream(seed, 33);
    let mut right = Vec::with_capacity(M);
    let mut says = Vec::with_capacity(M);
    let mut q = Vec::with_capacity(M);
    for _ in 0..M {
        let r = unit(&mut rng) < accuracy;
        // The judge's verdict is right with probability c.
        let c = 1.0 - 0.5 * unit(&mut rng).powi(2);
        let s = if unit(&mut rng) < c { r } else { !r };
        // Calibrated: the chance the classifier was right given what the
        // judge saw (Bayes, with the classifier's accuracy as the prior).
        let (a, b) = if s {
            (accuracy * c, (1.0 - accuracy) * (1.0 - c))
        } else {
            (accuracy * (1.0 - c), (1.0 - accuracy) * c)
        };
        let calibrated = a / (a + b);
        let reported = match judge {
            Judge::Calibrated => calibrated,
            // Over-confident: three times the log-odds.
            Judge::OverConfident => {
                let (x, y) = (calibrated.powi(3), (1.0 - calibrated).powi(3));
                x / (x + y)
            }
        };
        right.push(f64::from(u8::from(r)));
        says.push(f64::from(u8::from(s)));
        q.push(Some(reported));
    }
    let truth = right.iter().sum::<f64>() / M as f64;
    let n = ((budget * M as f64).round() as usize).max(2);

    // Active: draws by p, a combination drawn again counting again.
    let p = draw_probabilities(&q, FLOOR);
    let mut counts = vec![0u32; M];
    for i in draws(&p, rng.next_u64(), n) {
        counts[i] += 1;
    }
    // The judge's reading as `jury estimate` uses it (its hard verdict).
    let f = &says;
    let act: Vec<Draw> = (0..M)
        .filter(|&i| counts[i] > 0)
        .map(|i| Draw {
            y: right[i],
            y_hat: f[i],
            p: p[i],
            count: counts[i],
            design: Design::Active,
        })
        .collect();
    let a = active_mean_ci(&act, f, 0.05).ok()?;

    // Uniform: a random n of the M (partial Fisher–Yates).
    let mut idx: Vec<usize> = (0..M).collect();
    for k in 0..n {
        let j = k + rng.below((M - k) as u64) as usize;
        idx.swap(k, j);
    }
    let (lab, unl) = idx.split_at(n);
    let y: Vec<f64> = lab.iter().map(|&i| right[i]).collect();
    let yh: Vec<f64> = lab.iter().map(|&i| says[i]).collect();
    let yu: Vec<f64> = unl.iter().map(|&i| says[i]).collect();
    let u = ppi_mean_ci(&y, &yh, &yu, 0.05)?;
    Some(Outcome {
        active_cover: a.ci[0] <= truth && truth <= a.ci[1],
        active_half: (a.ci[1] - a.ci[0]) / 2.0,
        uniform_cover: u.ci[0] <= truth && truth <= u.ci[1],
        uniform_half: (u.ci[1] - u.ci[0]) / 2.0,
    })
}

/// One cell of the grid over `studies` seeded studies.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    pub accuracy: f64,
    pub judge: Judge,
    pub budget: f64,
    pub studies: usize,
    pub active_coverage: f64,
    pub uniform_coverage: f64,
    pub active_half: f64,
    pub uniform_half: f64,
}

impl Cell {
    /// Labels the active order needs for the uniform PPI++'s width, as a
    /// share of the uniform's: widths go as 1/√n.
    pub fn labels_ratio(&self) -> f64 {
        (self.active_half / self.uniform_half).powi(2)
    }
}

pub fn cell(accuracy: f64, judge: Judge, budget: f64, studies: u64) -> Cell {
    let (mut ac, mut uc, mut aw, mut uw, mut k) = (0usize, 0usize, 0.0, 0.0, 0usize);
    for s in 0..studies {
        let seed = (accuracy * 1e4) as u64 * 1_000_003 + (budget * 1e3) as u64 * 7919 + s;
        let seed = if judge == Judge::OverConfident {
            seed ^ 0x0c0f
        } else {
            seed
        };
        let Some(o) = study(accuracy, judge, budget, seed) else {
            continue;
        };
        k += 1;
        ac += usize::from(o.active_cover);
        uc += usize::from(o.uniform_cover);
        aw += o.active_half;
        uw += o.uniform_half;
    }
    let k1 = k.max(1) as f64;
    Cell {
        accuracy,
        judge,
        budget,
        studies: k,
        active_coverage: ac as f64 / k1,
        uniform_coverage: uc as f64 / k1,
        active_half: aw / k1,
        uniform_half: uw / k1,
    }
}

pub const ACCURACIES: [f64; 5] = [0.6, 0.7, 0.8, 0.9, 0.95];
pub const JUDGES: [Judge; 2] = [Judge::Calibrated, Judge::OverConfident];
pub const BUDGETS: [f64; 3] = [0.05, 0.15, 0.30];

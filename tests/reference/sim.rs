//! Seeded synthetic studies with a known truth, run through jury's own
//! reading layer (`report::estimate`, `report::rank`): the coverage tests
//! in `coverage.rs` and the full grid in `benches/coverage.rs` share them.
//!
//! A study: combinations where the classifier is right with probability
//! `accuracy`; `n` of them labelled (a random sample), `big_n` judged only.
//! People: one person reads every combination right (the truth is the
//! classifier's accuracy); with three, each reads it right with
//! probability 0.9 and the truth is the chance their majority says
//! "right". Judges read the classifier's correctness:
//! - balanced: right 85 % whichever way;
//! - leaning: says "right" 97 % of the time when it is, 50 % when it is not;
//! - hedging (Likert): right 85 %, and where it would be wrong it answers 3.
#![allow(dead_code)]

use jury::domain::{Agreement, ComboKey, Mode, Protocol, Value};
use jury::report::estimate::{Sampling, estimates};
use jury::report::pairs::{Comparison, Pair, PairContext, Readings};
use jury::rng::Xoshiro256pp;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JudgeKind {
    Balanced,
    Leaning,
    Hedging,
}

impl JudgeKind {
    pub fn name(self) -> &'static str {
        match self {
            JudgeKind::Balanced => "balanced",
            JudgeKind::Leaning => "leaning",
            JudgeKind::Hedging => "hedging",
        }
    }

    /// The judge's answer on a combination where the classifier is `right`.
    fn answer(self, right: bool, rng: &mut Xoshiro256pp) -> Value {
        let u = unit(rng);
        let ag = |b: bool| {
            Value::Agreement(if b {
                Agreement::Agree
            } else {
                Agreement::Disagree
            })
        };
        match self {
            JudgeKind::Balanced => ag(if u < 0.85 { right } else { !right }),
            JudgeKind::Leaning => ag(if right { u < 0.97 } else { u < 0.5 }),
            JudgeKind::Hedging => {
                if u < 0.85 {
                    Value::Likert(if right { 5 } else { 1 })
                } else {
                    Value::Likert(3)
                }
            }
        }
    }
}

pub fn unit(rng: &mut Xoshiro256pp) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn ag(b: bool) -> Value {
    Value::Agreement(if b {
        Agreement::Agree
    } else {
        Agreement::Disagree
    })
}

/// Per-person reading accuracy with three people.
const PERSON: f64 = 0.9;

/// The chance people's reading says "right" (the estimate's truth).
pub fn truth(accuracy: f64, people: usize) -> f64 {
    if people == 1 {
        return accuracy;
    }
    // Majority of three, each right with PERSON.
    let maj = PERSON.powi(3) + 3.0 * PERSON.powi(2) * (1.0 - PERSON);
    accuracy * maj + (1.0 - accuracy) * (1.0 - maj)
}

/// What one estimate study gave: did the labels-alone and the PPI++
/// interval cover, and their widths.
#[derive(Debug, Default, Clone, Copy)]
pub struct EstimateOutcome {
    pub labels_cover: bool,
    pub ppi_cover: bool,
    pub labels_width: f64,
    pub ppi_width: f64,
    pub normal: bool,
}

/// One study through `report::estimate::estimates`.
pub fn estimate_study(
    accuracy: f64,
    judge: JudgeKind,
    n: usize,
    big_n: usize,
    people: usize,
    seed: u64,
) -> EstimateOutcome {
    let mut rng = Xoshiro256pp::for_stream(seed, 0);
    let j: Arc<str> = Arc::from("judge");
    let persona: Arc<str> = Arc::from("p");
    let names: Vec<Arc<str>> = ["alice", "bob", "carol"]
        .iter()
        .map(|s| Arc::from(*s))
        .collect();
    let mut verdicts = Vec::with_capacity(n + big_n);
    let mut labels = Vec::new();
    for i in 0..n + big_n {
        let right = unit(&mut rng) < accuracy;
        let key = Arc::new(ComboKey::new(&format!("i{i}"), "c", "p"));
        verdicts.push((
            j.clone(),
            persona.clone(),
            key.clone(),
            judge.answer(right, &mut rng),
        ));
        if i < n {
            for who in names.iter().take(people) {
                let read = if people == 1 || unit(&mut rng) < PERSON {
                    right
                } else {
                    !right
                };
                labels.push((persona.clone(), key.clone(), who.clone(), ag(read)));
            }
        }
    }
    let confidences = vec![None; verdicts.len()];
    let r = Readings {
        verdicts,
        labels,
        confidences,
    };
    let e = &estimates(&r, 0.05, None, &Sampling::default())[0];
    let t = truth(accuracy, people);
    let covers = |ci: [f64; 2]| ci[0] <= t && t <= ci[1];
    let (h, p) = (e.human_only.expect("labels"), e.ppi.expect("unlabelled"));
    EstimateOutcome {
        labels_cover: covers(h.ci),
        ppi_cover: covers(p.ci),
        labels_width: h.ci[1] - h.ci[0],
        ppi_width: p.ci[1] - p.ci[0],
        normal: e.not_normal.is_none(),
    }
}

/// What one ranking study gave, for two judges of equal quality.
#[derive(Debug, Default, Clone, Copy)]
pub struct RankOutcome {
    /// The difference interval holds the true difference (0).
    pub delta_covers: bool,
    /// The equal judge was called "behind".
    pub behind: bool,
    /// Each configuration's agreement interval held its true agreement.
    pub agreement_covers: [bool; 2],
    pub has_interval: bool,
}

/// Two balanced judges (same quality), `n` combinations, `people` per
/// combination, through `report::rank::rankings`.
pub fn rank_study(accuracy: f64, n: usize, people: usize, seed: u64) -> RankOutcome {
    let mut rng = Xoshiro256pp::for_stream(seed, 1);
    let names: Vec<Arc<str>> = ["alice", "bob", "carol"]
        .iter()
        .map(|s| Arc::from(*s))
        .collect();
    let judges: [Arc<str>; 2] = [Arc::from("judge a"), Arc::from("judge b")];
    let mut ps = Vec::new();
    for i in 0..n {
        let right = unit(&mut rng) < accuracy;
        let key = Arc::new(ComboKey::new(&format!("i{i}"), "c", "p"));
        let answers: Vec<Value> = judges
            .iter()
            .map(|_| JudgeKind::Balanced.answer(right, &mut rng))
            .collect();
        for who in names.iter().take(people) {
            let read = if people == 1 || unit(&mut rng) < PERSON {
                right
            } else {
                !right
            };
            for (j, a) in judges.iter().zip(&answers) {
                ps.push(Pair {
                    ctx: PairContext {
                        key: key.clone(),
                        protocol: Protocol::Awag,
                        persona: Arc::from("p"),
                        mode: Some(Mode::Two),
                        model: Arc::from("m"),
                        run: None,
                    },
                    left: j.clone(),
                    right: who.clone(),
                    a: *a,
                    b: ag(read),
                });
            }
        }
    }
    let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
    let r = &jury::report::rank::rankings(&all, None, 400, seed)[0];
    // A judge right 85 % against a person right 100 % (one) or 90 % (three).
    let p_person = if people == 1 { 1.0 } else { PERSON };
    let true_agreement = 0.85 * p_person + 0.15 * (1.0 - p_person);
    let d = r.configurations[1].behind_best.as_ref().expect("second");
    let covers = |f: &jury::analytics::Figure| {
        f.ci95
            .is_some_and(|[a, b]| a <= true_agreement && true_agreement <= b)
    };
    RankOutcome {
        delta_covers: d
            .delta_agree
            .ci95
            .is_some_and(|[a, b]| a <= 0.0 && 0.0 <= b),
        behind: r.configurations[1].separation == jury::report::rank::Separation::Behind,
        agreement_covers: [
            covers(&r.configurations[0].agreement),
            covers(&r.configurations[1].agreement),
        ],
        has_interval: d.delta_agree.ci95.is_some(),
    }
}

/// What one agreement study gave: whether kappa, AC1 and PABAK's intervals
/// (when shown) held the population values.
#[derive(Debug, Default, Clone, Copy)]
pub struct KappaOutcome {
    /// (shown, covered) for kappa, AC1, PABAK.
    pub kappa: (bool, bool),
    pub ac1: (bool, bool),
    pub pabak: (bool, bool),
}

/// Two raters on a binary scale: both "right" with `p11`, both "wrong"
/// with `p22`, each disagreement with `(1 − p11 − p22)/2`; n pairs through
/// `analytics::Figures`.
pub fn kappa_study(p11: f64, p22: f64, n: usize, seed: u64) -> KappaOutcome {
    let pairs = kappa_pairs(p11, p22, n, seed);
    let off = (1.0 - p11 - p22) / 2.0;
    let f = jury::analytics::Figures::compute(&pairs, 2, false, 400, seed).expect("binary");
    let truth = kappa_truth(p11, p22);
    let pa = p11 + p22;
    let m = p11 + off; // each rater's share of "right"
    let pe_ac1 = 2.0 * m * (1.0 - m);
    let ac1 = (pa - pe_ac1) / (1.0 - pe_ac1);
    let pabak = 2.0 * pa - 1.0;
    let held = |fig: &jury::analytics::Figure, truth: f64| match fig.ci95 {
        Some([a, b]) => (true, a <= truth && truth <= b),
        None => (false, false),
    };
    KappaOutcome {
        kappa: held(&f.cohen_kappa, truth),
        ac1: held(&f.gwet_ac1, ac1),
        pabak: held(&f.pabak, pabak),
    }
}

/// Kappa of the population `kappa_pairs` draws from.
pub fn kappa_truth(p11: f64, p22: f64) -> f64 {
    let off = (1.0 - p11 - p22) / 2.0;
    let m = p11 + off;
    let pe = m * m + (1.0 - m) * (1.0 - m);
    (p11 + p22 - pe) / (1.0 - pe)
}

/// n pairs of two raters on a binary scale: both say 0 with `p11`, both 1
/// with `p22`, and each split the same share of the rest.
pub fn kappa_pairs(p11: f64, p22: f64, n: usize, seed: u64) -> Vec<(u8, u8)> {
    // Its own stream: a bootstrap seeded with `seed` draws resample r
    // from stream r.
    let mut rng = Xoshiro256pp::for_stream(seed ^ 0x006b_6170_7061, 2);
    let off = (1.0 - p11 - p22) / 2.0;
    (0..n)
        .map(|_| {
            let u = unit(&mut rng);
            if u < p11 {
                (0, 0)
            } else if u < p11 + p22 {
                (1, 1)
            } else if u < p11 + p22 + off {
                (0, 1)
            } else {
                (1, 0)
            }
        })
        .collect()
}

/// Whether the ranking's kappa intervals were shown and covered.
#[derive(Debug, Clone, Copy)]
pub struct RankKappaOutcome {
    /// Each judge's kappa against the people: (shown, covers), twice.
    pub kappa: [(bool, bool); 2],
    /// Their difference (truly 0): (shown, covers).
    pub delta: (bool, bool),
}

/// The kappa of a judge and a person who each read a binary truth (0 with
/// probability `pi`) right with probability `q`, independently.
pub fn latent_kappa_truth(pi: f64, q: f64) -> f64 {
    let both0 = pi * q * q + (1.0 - pi) * (1.0 - q) * (1.0 - q);
    let both1 = pi * (1.0 - q) * (1.0 - q) + (1.0 - pi) * q * q;
    // The two ways of disagreeing are equally likely (q·(1 − q) each).
    kappa_truth(both0, both1)
}

/// The ranking's paired comparison (`report::paired`, as `jury rank` calls
/// it: combinations resampled with all their people, 400 resamples) of two
/// equal judges on `n` combinations, each labelled by `people`: a binary
/// truth per combination (0 with probability `pi`), and every judge and
/// person reads it right with probability `q`, independently. With three
/// people the pairs of one combination share its truth and its judges'
/// answers: they are clustered.
pub fn rank_kappa_study(pi: f64, q: f64, n: usize, people: usize, seed: u64) -> RankKappaOutcome {
    use jury::report::paired::{Both, Credit, paired_delta_clustered};
    let mut rng = Xoshiro256pp::for_stream(seed ^ 0x7261_6e6b, 3);
    let read = |t: u8, rng: &mut Xoshiro256pp| if unit(rng) < q { t } else { 1 - t };
    let (mut both, mut clusters): (Vec<Both>, Vec<u32>) = (Vec::new(), Vec::new());
    for i in 0..n {
        let t = u8::from(unit(&mut rng) >= pi);
        let (a, b) = (read(t, &mut rng), read(t, &mut rng));
        for _ in 0..people {
            let y = read(t, &mut rng);
            both.push([(a, y), (b, y)]);
            clusters.push(i as u32);
        }
    }
    let d = paired_delta_clustered(&both, Some(&clusters), 2, Credit::Exact, 400, seed);
    let truth = latent_kappa_truth(pi, q);
    let held = |f: &jury::analytics::Figure, truth: f64| match f.ci95 {
        Some([lo, hi]) => (true, lo <= truth && truth <= hi),
        None => (false, false),
    };
    RankKappaOutcome {
        kappa: [held(&d.kappa_from, truth), held(&d.kappa_to, truth)],
        delta: held(&d.delta_kappa, 0.0),
    }
}

//! The sample orders over combinations (issue #33): `active`, seeded draws
//! with replacement where the judge is unsure
//! ([`crate::analytics::active_design`]), and `random`, a seeded shuffle.
//!
//! The population is every (persona, combination) a judge gave a right or
//! wrong reading. Draw probabilities are set within each stratum (persona,
//! classification, perspective), which is what the estimate reads per
//! classification: a draw first lands in a stratum with its share of the
//! combinations, then picks within it by `p`. So, given how many draws
//! landed in a stratum, they are independent draws by `p` there, and each
//! label records that `p`.

use super::pairs::Readings;
use crate::analytics::active_design::{FLOOR, draw_probabilities, draws, inclusion};
use crate::analytics::agreement_reading;
use crate::domain::ComboKey;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderKind {
    Active,
    Random,
}

impl OrderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderKind::Active => "active",
            OrderKind::Random => "random",
        }
    }
}

/// One combination of the population and what is known of the judge's
/// uncertainty there.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub persona: Arc<str>,
    pub key: Arc<ComboKey>,
    /// The judge's probability that the classifier was right (the mean over
    /// its verdicts there), `None` when nothing says how sure it was: one
    /// verdict with no confidence.
    pub q: Option<f64>,
}

/// The probability a verdict gives that the classifier was right: its
/// confidence in the value it gave (or the share of repeats behind the
/// majority) turned toward "right", else its own reading.
fn right_probability(readings: &Readings, i: usize) -> Option<(f64, bool)> {
    let v = &readings.verdicts[i];
    if let Some(Some(c)) = readings.confidences.get(i)
        && let Some(r) = agreement_reading(c.value)
    {
        let c = c.confidence.value.clamp(0.0, 1.0);
        let q = if r == 1.0 {
            c
        } else if r == 0.0 {
            1.0 - c
        } else {
            0.5
        };
        return Some((q, true));
    }
    agreement_reading(v.3).map(|r| (r, false))
}

/// The population, sorted by (persona, classification, perspective, item)
/// so the order is the same whatever the store's row order.
pub fn population(readings: &Readings, persona: Option<&str>) -> Vec<Member> {
    #[derive(Default)]
    struct Acc {
        sum: f64,
        n: usize,
        confident: bool,
    }
    let mut by: BTreeMap<(Arc<str>, Arc<ComboKey>), Acc> = BTreeMap::new();
    for (i, v) in readings.verdicts.iter().enumerate() {
        if persona.is_some_and(|p| p != &*v.1) {
            continue;
        }
        let Some((q, confident)) = right_probability(readings, i) else {
            continue;
        };
        let a = by.entry((v.1.clone(), v.2.clone())).or_default();
        a.sum += q;
        a.n += 1;
        a.confident |= confident;
    }
    let mut out: Vec<Member> = by
        .into_iter()
        .map(|((persona, key), a)| Member {
            persona,
            key,
            q: (a.confident || a.n > 1).then(|| a.sum / a.n as f64),
        })
        .collect();
    out.sort_by(|a, b| {
        stratum(a)
            .cmp(&stratum(b))
            .then(a.key.item_id.cmp(&b.key.item_id))
    });
    out
}

fn stratum(m: &Member) -> (&str, &str, &str) {
    (&m.persona, &m.key.classification_id, &m.key.perspective_id)
}

/// One draw of an order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drawn {
    /// 1-based.
    pub draw: u64,
    pub item_id: String,
    pub classification_id: String,
    pub perspective_id: String,
    pub persona_id: String,
    /// The probability one draw picks this combination within its stratum
    /// (persona, classification, perspective): what its label records.
    pub pi: f64,
    /// The chance it is picked at least once in the draws asked for.
    pub inclusion: f64,
    pub sample_order: OrderKind,
    pub sample_seed: u64,
    /// Drawn before in this listing or labelled already: its label is
    /// reused (the draw still counts).
    pub repeat: bool,
}

/// Each member's per-draw probability within its stratum, and the
/// stratum's share of the population.
pub fn stratum_probabilities(members: &[Member], floor: f64) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); members.len()];
    let total = members.len() as f64;
    let mut start = 0;
    while start < members.len() {
        let mut end = start + 1;
        while end < members.len() && stratum(&members[end]) == stratum(&members[start]) {
            end += 1;
        }
        let q: Vec<Option<f64>> = members[start..end].iter().map(|m| m.q).collect();
        let share = (end - start) as f64 / total;
        for (o, p) in out[start..end]
            .iter_mut()
            .zip(draw_probabilities(&q, floor))
        {
            *o = (p, share);
        }
        start = end;
    }
    out
}

/// The members the first `skip + n` draws of the order pick, from draw
/// `skip + 1` on, and each member's (probability within its stratum,
/// stratum's share). The one place an order's draws are made: `jury
/// sample` ([`order`]) and the workbench ([`super::active_walk`]) both
/// read them here. Active: independent draws by each member's stratum
/// share × `p`; random: a seeded shuffle (each combination once).
pub fn picks(
    members: &[Member],
    kind: OrderKind,
    seed: u64,
    skip: usize,
    n: usize,
) -> (Vec<usize>, Vec<(f64, f64)>) {
    let probs = stratum_probabilities(
        members,
        if kind == OrderKind::Active {
            FLOOR
        } else {
            1.0
        },
    );
    let picks: Vec<usize> = match kind {
        OrderKind::Active => {
            let global: Vec<f64> = probs.iter().map(|(p, share)| p * share).collect();
            draws(&global, seed, skip + n).split_off(skip.min(skip + n))
        }
        OrderKind::Random => {
            let mut idx: Vec<usize> = (0..members.len()).collect();
            let mut rng = crate::rng::Xoshiro256pp::seed_from_u64(seed);
            // Fisher–Yates.
            for i in (1..idx.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                idx.swap(i, j);
            }
            idx.into_iter().skip(skip).take(n).collect()
        }
    };
    (picks, probs)
}

/// The first `n` draws of the order after `skip` draws already made.
/// `labelled`: combinations already labelled (their draws are repeats).
/// Random: `pi` = 1/M of its stratum.
pub fn order(
    members: &[Member],
    kind: OrderKind,
    seed: u64,
    skip: usize,
    n: usize,
    labelled: &dyn Fn(&Member) -> bool,
) -> Vec<Drawn> {
    let (picks, probs) = picks(members, kind, seed, skip, n);
    let mut seen = std::collections::HashSet::new();
    picks
        .into_iter()
        .enumerate()
        .map(|(k, i)| {
            let m = &members[i];
            let (p, _) = probs[i];
            Drawn {
                draw: (skip + k + 1) as u64,
                item_id: m.key.item_id.clone(),
                classification_id: m.key.classification_id.clone(),
                perspective_id: m.key.perspective_id.clone(),
                persona_id: m.persona.to_string(),
                pi: p,
                inclusion: match kind {
                    OrderKind::Active => inclusion(p * probs[i].1, n),
                    OrderKind::Random => (n as f64 / members.len() as f64).min(1.0),
                },
                sample_order: kind,
                sample_seed: seed,
                repeat: !seen.insert(i) || labelled(m),
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;
    use crate::domain::{Agreement, Value};

    pub fn readings() -> Readings {
        let ag = |b: bool| {
            Value::Agreement(if b {
                Agreement::Agree
            } else {
                Agreement::Disagree
            })
        };
        let mut verdicts = Vec::new();
        let mut confidences = Vec::new();
        for i in 0..40 {
            let key = Arc::new(ComboKey::new(&format!("i{i:02}"), "c", "p"));
            verdicts.push((Arc::from("judge"), Arc::from("kenton"), key, ag(i % 3 > 0)));
            confidences.push(Some(crate::report::pairs::Confident {
                value: ag(i % 3 > 0),
                confidence: crate::domain::Confidence {
                    value: if i < 10 { 0.55 } else { 0.99 },
                    source: crate::domain::ConfidenceSource::Logprobs,
                    expected_score: None,
                },
            }));
        }
        Readings {
            verdicts,
            labels: Vec::new(),
            confidences,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tests_support::readings;

    #[test]
    fn the_active_order_draws_where_the_judge_is_unsure() {
        let members = population(&readings(), None);
        assert_eq!(members.len(), 40);
        let d = order(&members, OrderKind::Active, 3, 0, 400, &|_| false);
        let unsure = d.iter().filter(|d| d.item_id.as_str() < "i10").count();
        // 10 of 40 unsure: well over a quarter of the draws.
        assert!(unsure > 200, "{unsure}");
        assert!((d.iter().map(|d| d.pi).fold(0.0, f64::max) * 40.0) > 2.0);
        // Prefix-stable: skipping 5 gives draws 6.. of the same order.
        let later = order(&members, OrderKind::Active, 3, 5, 10, &|_| false);
        assert_eq!(later[0].item_id, d[5].item_id);
        assert_eq!(later[0].draw, 6);
        // Random: each combination once, pi = 1/40.
        let r = order(&members, OrderKind::Random, 3, 0, 40, &|_| false);
        assert!(r.iter().all(|d| !d.repeat && (d.pi - 0.025).abs() < 1e-12));
    }
}

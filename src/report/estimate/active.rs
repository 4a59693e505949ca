//! The active line of `jury estimate` (issue #33): the accuracy from the
//! labels given in the active order, each weighed by the probability its
//! draw had, pooled with the labels of the random sample order (each at
//! 1/M) — [`crate::analytics::active`]. Labels a person chose, or gave in a
//! list made of the judge's verdicts, are not used: the line rests on known
//! draw probabilities alone. The uniform PPI++ and labels-alone lines leave
//! the active order's labels out (that order follows the judge's
//! uncertainty, so it is not a random sample): they count among the
//! labels selected by the judge.

use super::{PersonReadings, Sampling, reference_reading};
use crate::analytics::active::{ActiveEstimate, Design, Draw, active_mean_ci};
use crate::domain::ComboKey;
use crate::report::pairs::Readings;
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::sync::Arc;

/// The active estimate as `jury estimate` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ActiveLine {
    pub estimate: f64,
    pub ci: [f64; 2],
    /// Draws used (a combination drawn twice counts twice).
    pub n: usize,
    /// Of the `n`: draws of the random sample order, of the active order.
    pub n_uniform: usize,
    pub n_active: usize,
    pub lambda: f64,
    /// The combinations of the population (labelled or not).
    #[serde(rename = "N")]
    pub big_n: usize,
}

impl ActiveLine {
    fn of(e: ActiveEstimate, big_n: usize) -> ActiveLine {
        ActiveLine {
            estimate: e.estimate,
            ci: e.ci,
            n: e.n,
            n_uniform: e.n_uniform,
            n_active: e.n_active,
            lambda: e.lambda,
            big_n,
        }
    }
}

/// Of one (persona, combination): the readings of its labels drawn in an
/// order, and its active draw (`None`: only random-order labels).
pub(crate) struct Drawn<'a> {
    readings: PersonReadings<'a>,
    active: Option<crate::store::ActiveDraw>,
}

/// (persona, combination) → its drawn labels.
pub(crate) type DrawIndex<'a> = HashMap<(&'a str, &'a ComboKey), Drawn<'a>>;

/// The labels given in the random or the active order, by combination.
pub(crate) fn draw_index<'a>(readings: &'a Readings, sampling: &'a Sampling) -> DrawIndex<'a> {
    let mut out: DrawIndex<'a> = HashMap::default();
    if sampling.active.is_empty() {
        return out;
    }
    for (persona, key, person, value) in &readings.labels {
        let k = ((**key).clone(), persona.to_string(), person.to_string());
        let active = sampling.active.get(&k).copied();
        if active.is_none() && !sampling.sampled.contains_key(&k) {
            continue;
        }
        let e = out.entry((persona, key)).or_insert(Drawn {
            readings: Vec::new(),
            active: None,
        });
        e.readings.push((person, super::reading(value)));
        // Several people drew it in the active order: the most draws.
        if let Some(a) = active
            && e.active.is_none_or(|b| b.draws < a.draws)
        {
            e.active = Some(a);
        }
    }
    out
}

/// One group's population and draws, gathered verdict by verdict, and
/// the uniform lines' labels (what `jury plan` learns from).
#[derive(Default)]
pub(crate) struct Collect {
    y_hat_all: Vec<f64>,
    draws: Vec<Draw>,
    draw_keys: Vec<Member>,
    labels: Vec<(f64, f64, Member)>,
    /// The population's size per stratum (persona, classification,
    /// perspective): a group pooling several (an item's owner as persona,
    /// all classifications) holds a few.
    strata: Vec<(Stratum, usize)>,
}

/// (persona, classification, perspective).
pub type Stratum = (Arc<str>, String, String);

fn same(s: &Stratum, persona: &str, key: &ComboKey) -> bool {
    &*s.0 == persona && s.1 == key.classification_id && s.2 == key.perspective_id
}

/// A combination under a persona.
pub(crate) type Member = (Arc<str>, Arc<ComboKey>);

/// What `jury plan` needs of one estimate: the population's size and the
/// variance of the judge's readings on it, the active line's draws and
/// the uniform lines' labels, each with its combination.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanParts {
    pub m: usize,
    pub var_yhat: f64,
    pub draws: Vec<(Draw, Member)>,
    pub labels: Vec<(f64, f64, Member)>,
    /// The population's size per (persona, classification, perspective),
    /// when it pools several (else empty).
    pub strata: Vec<(Stratum, usize)>,
}

impl Collect {
    /// One verdict `j` of the group on `key` under `persona`.
    pub(crate) fn add(
        &mut self,
        j: f64,
        member: (&Arc<str>, &Arc<ComboKey>),
        drawn: Option<&Drawn<'_>>,
        who: Option<&str>,
        adjudicated: Option<Option<bool>>,
    ) {
        self.y_hat_all.push(j);
        match self
            .strata
            .iter_mut()
            .find(|(s, _)| same(s, member.0, member.1))
        {
            Some((_, n)) => *n += 1,
            None => self.strata.push((
                (
                    member.0.clone(),
                    member.1.classification_id.clone(),
                    member.1.perspective_id.clone(),
                ),
                1,
            )),
        }
        let Some(d) = drawn else { return };
        // A combination people left undecided stays in the population
        // unlabelled.
        let Ok((y, _)) = reference_reading(&d.readings, who, adjudicated) else {
            return;
        };
        let y = f64::from(u8::from(y));
        self.draw_keys.push((member.0.clone(), member.1.clone()));
        self.draws.push(match d.active {
            Some(a) => Draw {
                y,
                y_hat: j,
                p: a.p,
                count: a.draws,
                design: Design::Active,
            },
            None => Draw {
                y,
                y_hat: j,
                p: 0.0,
                count: 1,
                design: Design::Uniform,
            },
        });
    }

    /// The draws with each active draw's probability among the group's
    /// population. A label records the probability within its stratum
    /// (persona, classification, perspective); the order lands in a
    /// stratum with its share of the combinations, so among a group
    /// pooling several strata a draw picks it with `p · size/M`. (One
    /// stratum: `p`.)
    fn pooled_draws(&self) -> Vec<Draw> {
        let m = self.y_hat_all.len() as f64;
        self.draws
            .iter()
            .zip(&self.draw_keys)
            .map(|(d, (persona, key))| {
                if d.design != Design::Active || self.strata.len() < 2 {
                    return *d;
                }
                let size = self
                    .strata
                    .iter()
                    .find(|(s, _)| same(s, persona, key))
                    .map_or(m, |(_, n)| *n as f64);
                Draw {
                    p: d.p * size / m,
                    ..*d
                }
            })
            .collect()
    }

    /// The line, when some draw was of the active order (without one it
    /// would repeat the PPI line).
    pub(crate) fn finish(&self, alpha: f64) -> Option<ActiveLine> {
        if !self.draws.iter().any(|d| d.design == Design::Active) {
            return None;
        }
        active_mean_ci(&self.pooled_draws(), &self.y_hat_all, alpha)
            .ok()
            .map(|e| ActiveLine::of(e, self.y_hat_all.len()))
    }

    /// A label the uniform lines use: people's `y`, the judge's `j`.
    pub(crate) fn add_label(&mut self, y: f64, j: f64, member: (&Arc<str>, &Arc<ComboKey>)) {
        self.labels
            .push((y, j, (member.0.clone(), member.1.clone())));
    }

    /// What `jury plan` needs (`None` without a population).
    pub(crate) fn plan_parts(&mut self) -> Option<Arc<PlanParts>> {
        if self.y_hat_all.is_empty() {
            return None;
        }
        let m = self.y_hat_all.len();
        let mean = self.y_hat_all.iter().sum::<f64>() / m as f64;
        let var_yhat = self
            .y_hat_all
            .iter()
            .map(|x| (x - mean) * (x - mean))
            .sum::<f64>()
            / m as f64;
        Some(Arc::new(PlanParts {
            m,
            var_yhat,
            draws: self
                .pooled_draws()
                .into_iter()
                .zip(std::mem::take(&mut self.draw_keys))
                .collect(),
            labels: std::mem::take(&mut self.labels),
            strata: if self.strata.len() > 1 {
                self.strata.clone()
            } else {
                Vec::new()
            },
        }))
    }
}

/// "active order: 0.78 [0.70, 0.86] from 60 draws (45 active, 15 random)".
pub fn text(a: &ActiveLine) -> String {
    format!(
        "active: {:.2} [{:.2}, {:.2}] from {} draw(s) ({} of the active order, {} of the random sample; λ {:.2}; labels chosen by hand or by the judge not used; PPI++ and labels alone leave the active order's out)",
        a.estimate, a.ci[0], a.ci[1], a.n, a.n_active, a.n_uniform, a.lambda
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ActiveDraw;

    /// Two personas' strata of 2 and 6 combinations pooled in one group
    /// (an item's owner as persona): a draw recorded with p = 0.5 within
    /// the first picks it with 0.5 · 2/8 among the group.
    #[test]
    fn a_group_pooling_strata_reads_each_draw_among_the_whole_group() {
        let mut c = Collect::default();
        let a: Arc<str> = Arc::from("kenton");
        let b: Arc<str> = Arc::from("maren");
        let key = |i: usize| Arc::new(ComboKey::new(&format!("i{i}"), "urgency", "classification"));
        let drawn = Drawn {
            readings: vec![("tester", Some(true))],
            active: Some(ActiveDraw {
                seed: Some(1),
                p: 0.5,
                draw: Some(1),
                draws: 1,
            }),
        };
        c.add(1.0, (&a, &key(0)), Some(&drawn), None, None);
        c.add(1.0, (&a, &key(1)), None, None, None);
        for i in 2..8 {
            c.add(0.0, (&b, &key(i)), None, None, None);
        }
        let d = c.pooled_draws();
        assert_eq!(d.len(), 1);
        assert!((d[0].p - 0.125).abs() < 1e-12, "{:?}", d[0]);
        // One stratum alone: as recorded.
        let mut one = Collect::default();
        one.add(1.0, (&a, &key(0)), Some(&drawn), None, None);
        one.add(1.0, (&a, &key(1)), None, None, None);
        assert_eq!(one.pooled_draws()[0].p, 0.5);
        let parts = c.plan_parts().unwrap();
        assert_eq!(parts.strata.len(), 2);
    }
}

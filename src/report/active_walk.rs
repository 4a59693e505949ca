//! The active order as a person walks it in the workbench (issue #33).
//!
//! The draws are `jury sample --order active`'s ([`super::active_order::picks`],
//! same seed, same π). The labels the estimate may use are a *prefix* of
//! those draws, draws 1..K as `jury sample` prints them: walking them in
//! order while each drawn combination carries this person's label. (A
//! prefix of the one sequence, not of each classification's draws: then
//! each classification, persona and perspective keeps its share of the
//! draws, which an estimate pooling several personas relies on.) Items are
//! listed by their first draw, so labelling every row of each item in list
//! order moves the prefix on. A combination labelled before its draw comes
//! (on another row of the same item, or earlier) is reused when the walk
//! reaches it, as `jury sample` marks such a draw "labelled already"; a
//! combination drawn again counts again. Each step records, per
//! combination, the first draw that picked it and how many draws of the
//! walked prefix did, exactly as `jury sample` + `jury import` record them.

use super::active_order::{Member, OrderKind, picks, population};
use super::pairs::Readings;
use crate::domain::ComboKey;
use crate::store::{ActiveDraw, SampledKey};
use std::collections::HashMap;
use std::sync::Arc;

/// The workbench's active order: its seed, the seed `jury sample` uses by
/// default, so both print the same draws.
pub const WORKBENCH_SEED: u64 = 1;

/// The draws the workbench lays out: four per combination (and at least
/// 200). A stratum's walk stops at the last of them; by then the floor
/// alone has drawn each combination about 1.2 times on average.
fn draws_for(m: usize) -> usize {
    (4 * m).max(200)
}

/// One (persona, combination) of the population.
type Key = (Arc<str>, Arc<ComboKey>);

/// A new draw recorded for a combination: what `Store::mark_active` adds.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDraw {
    pub persona: String,
    pub key: ComboKey,
    /// `draws` is the number of draws added (the store adds it to what it
    /// holds for this seed); `draw` the first draw that picked it.
    pub draw: ActiveDraw,
}

/// The order and what of it the store holds for one person.
#[derive(Debug, Clone)]
pub struct ActiveWalk {
    pub seed: u64,
    members: Vec<Member>,
    /// Per member: the probability one draw picks it within its stratum.
    p: Vec<f64>,
    /// The member each draw picked, in order (draw k at k − 1).
    drawn: Vec<u32>,
    index: HashMap<Key, u32>,
    /// Per member: the first draw and the draws the store holds for this
    /// person in this order.
    recorded: HashMap<u32, (u64, u32)>,
    /// Per item: the first draw that picked any of its combinations.
    item_first: HashMap<String, u64>,
}

impl ActiveWalk {
    /// The order over `readings`' judged combinations with `seed`, and what
    /// `stored` (every active label, [`crate::store::Store::active_labels`])
    /// holds for `who` in it.
    pub fn new(
        readings: &Readings,
        stored: &HashMap<SampledKey, ActiveDraw>,
        who: &str,
        seed: u64,
    ) -> ActiveWalk {
        let members = population(readings, None);
        let n = draws_for(members.len());
        let (drawn, probs) = picks(&members, OrderKind::Active, seed, 0, n);
        let mut item_first: HashMap<String, u64> = HashMap::new();
        for (k, &i) in drawn.iter().enumerate() {
            item_first
                .entry(members[i].key.item_id.clone())
                .or_insert(k as u64 + 1);
        }
        let index: HashMap<Key, u32> = members
            .iter()
            .enumerate()
            .map(|(i, m)| ((m.persona.clone(), m.key.clone()), i as u32))
            .collect();
        let recorded = stored
            .iter()
            .filter(|((_, _, w), d)| w == who && d.seed == Some(seed))
            .filter_map(|((key, persona, _), d)| {
                let i = *index.get(&(Arc::from(persona.as_str()), Arc::new(key.clone())))?;
                Some((i, (d.draw.unwrap_or(0), d.draws)))
            })
            .collect();
        ActiveWalk {
            seed,
            p: probs.into_iter().map(|(p, _)| p).collect(),
            members,
            drawn: drawn.into_iter().map(|i| i as u32).collect(),
            index,
            recorded,
            item_first,
        }
    }

    /// Combinations in the order.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Item `id`'s place in the order (higher first): by the first draw
    /// that picked any of its combinations; 0 for an item never drawn.
    pub fn rank(&self, id: &str) -> u32 {
        self.item_first
            .get(id)
            .map_or(0, |&d| u32::MAX.saturating_sub(d as u32))
    }

    /// Whether `persona`'s combination `key` is a recorded draw.
    pub fn is_drawn(&self, persona: &str, key: &ComboKey) -> bool {
        self.member(persona, key)
            .is_some_and(|i| self.recorded.contains_key(&i))
    }

    /// The first draw whose combination `labelled` says is not: where the
    /// walk stops, the next label that counts. (draw, persona, combination).
    pub fn next_draw(
        &self,
        labelled: impl Fn(&str, &ComboKey) -> bool,
    ) -> Option<(u64, &str, &ComboKey)> {
        self.drawn.iter().enumerate().find_map(|(k, &j)| {
            let m = &self.members[j as usize];
            (!labelled(&m.persona, &m.key)).then_some((k as u64 + 1, &*m.persona, &*m.key))
        })
    }

    fn member(&self, persona: &str, key: &ComboKey) -> Option<u32> {
        self.index
            .get(&(Arc::from(persona), Arc::new(key.clone())))
            .copied()
    }

    /// `persona`'s combination `key` was just labelled: walks the draws
    /// while `labelled` says each is, and returns the draws the store does
    /// not hold yet (now counted as held). Empty when `key` is not in the
    /// order or an earlier draw is unlabelled.
    pub fn advance(
        &mut self,
        persona: &str,
        key: &ComboKey,
        labelled: impl Fn(&str, &ComboKey) -> bool,
    ) -> Vec<NewDraw> {
        if self.member(persona, key).is_none() {
            return Vec::new();
        }
        let mut walked: HashMap<u32, (u64, u32)> = HashMap::new();
        for (k, &j) in self.drawn.iter().enumerate() {
            let draw = k as u64 + 1;
            let m = &self.members[j as usize];
            if !walked.contains_key(&j) && !labelled(&m.persona, &m.key) {
                break;
            }
            walked.entry(j).or_insert((draw, 0)).1 += 1;
        }
        let mut out = Vec::new();
        let mut ordered: Vec<(u32, (u64, u32))> = walked.into_iter().collect();
        ordered.sort_by_key(|(_, (first, _))| *first);
        for (j, (first, count)) in ordered {
            let held = self.recorded.get(&j).map_or(0, |r| r.1);
            if count <= held {
                continue;
            }
            let m = &self.members[j as usize];
            out.push(NewDraw {
                persona: m.persona.to_string(),
                key: (*m.key).clone(),
                draw: ActiveDraw {
                    seed: Some(self.seed),
                    p: self.p[j as usize],
                    draw: Some(first),
                    draws: count - held,
                },
            });
            self.recorded.insert(j, (first, count));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::active_order::order;

    fn readings() -> Readings {
        crate::report::active_order::tests_support::readings()
    }

    #[test]
    fn the_walk_records_the_prefix_of_the_draws_as_jury_sample_draws_it() {
        let r = readings();
        let mut w = ActiveWalk::new(&r, &HashMap::new(), "me", WORKBENCH_SEED);
        let members = population(&r, None);
        let listed = order(&members, OrderKind::Active, WORKBENCH_SEED, 0, 30, &|_| {
            false
        });
        let mut labelled: std::collections::HashSet<(String, ComboKey)> = Default::default();
        let is = |l: &std::collections::HashSet<(String, ComboKey)>| {
            let l = l.clone();
            move |p: &str, k: &ComboKey| l.contains(&(p.to_string(), k.clone()))
        };
        // Labelling the second draw first records nothing (the first is
        // unlabelled)...
        let second = &listed[1];
        let k2 = ComboKey::new(&second.item_id, &second.classification_id, "p");
        labelled.insert((second.persona_id.clone(), k2.clone()));
        if listed[0].item_id != second.item_id {
            assert!(w.advance(&second.persona_id, &k2, is(&labelled)).is_empty());
            assert!(!w.is_drawn(&second.persona_id, &k2));
        }
        // ...then labelling every listed draw in turn records each once
        // with jury sample's π and first draw, repeats adding to the count.
        let mut got: HashMap<(String, ComboKey), ActiveDraw> = HashMap::new();
        for d in &listed {
            let k = ComboKey::new(&d.item_id, &d.classification_id, "p");
            labelled.insert((d.persona_id.clone(), k.clone()));
            for nd in w.advance(&d.persona_id, &k, is(&labelled)) {
                let e = got
                    .entry((nd.persona.clone(), nd.key.clone()))
                    .or_insert(ActiveDraw {
                        draws: 0,
                        ..nd.draw
                    });
                e.draws += nd.draw.draws;
            }
        }
        // The walk goes on over the draws after the 30th while they pick
        // a combination labelled already (reused, as jury sample says).
        let longer = order(&members, OrderKind::Active, WORKBENCH_SEED, 0, 400, &|_| {
            false
        });
        let reused = longer[30..]
            .iter()
            .take_while(|d| {
                labelled.contains(&(
                    d.persona_id.clone(),
                    ComboKey::new(&d.item_id, &d.classification_id, "p"),
                ))
            })
            .count();
        let total: u32 = got.values().map(|d| d.draws).sum();
        assert_eq!(
            total as usize,
            30 + reused,
            "every walked draw counted once"
        );
        for d in &listed {
            let k = ComboKey::new(&d.item_id, &d.classification_id, "p");
            let g = got[&(d.persona_id.clone(), k.clone())];
            assert_eq!(g.p, d.pi);
            assert_eq!(g.seed, Some(WORKBENCH_SEED));
            if !d.repeat {
                assert_eq!(g.draw, Some(d.draw));
            }
            assert!(w.is_drawn(&d.persona_id, &k));
        }
        // Read back from the store's records: nothing new to record.
        let stored: HashMap<SampledKey, ActiveDraw> = got
            .into_iter()
            .map(|((p, k), d)| ((k, p, "me".to_string()), d))
            .collect();
        let mut again = ActiveWalk::new(&r, &stored, "me", WORKBENCH_SEED);
        let d = &listed[0];
        let k = ComboKey::new(&d.item_id, &d.classification_id, "p");
        assert!(again.advance(&d.persona_id, &k, is(&labelled)).is_empty());
        // Another person's walk starts from nothing.
        let mut other = ActiveWalk::new(&r, &stored, "someone else", WORKBENCH_SEED);
        assert!(!other.advance(&d.persona_id, &k, is(&labelled)).is_empty());
        // The first draw's item comes first.
        assert!(
            w.rank(&listed[0].item_id) > w.rank(&listed[1].item_id)
                || listed[0].item_id == listed[1].item_id
        );
    }
}

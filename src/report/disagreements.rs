//! Where the judge and people disagree, for the HTML page: chosen from the
//! report's judge-vs-human pairs (no second read of the store), the worst
//! first, one entry per combination and persona; only the few shown are
//! looked up in the store for the judges' reasoning and the people's notes.
//! Bounded whatever the store holds: a report over a million verdicts keeps
//! [`MAX_SHOWN`] combinations and reads the rows of their items alone.

use super::pairs::{Comparison, Pair, PairsByComparison};
use crate::domain::{Label, Value, Verdict};
use crate::store::Store;
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// Combinations listed; the rest are counted.
pub const MAX_SHOWN: usize = 200;

/// Characters kept of a reasoning or a note (a judge's answer may be long).
const MAX_TEXT: usize = 2000;

/// A judge configuration's standing verdict that some person disagrees with.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeVerdict {
    /// The judge configuration as the report names it.
    pub judge: String,
    pub value: Value,
    /// The judge's reasoning; `None` when the verdict could not be found
    /// again (it changed while the report was written).
    pub reasoning: Option<String>,
}

/// A person's label that disagrees with some verdict on the combination.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonLabel {
    pub who: String,
    pub value: Value,
    /// The label's note (empty when none was written), cut at a few
    /// thousand characters.
    pub note: String,
}

/// A combination (under a persona) where judges and people disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    pub item_id: String,
    pub title: String,
    pub classification: String,
    pub perspective: String,
    /// The classifier's selection on this classification (AwAg items).
    pub classifier: Option<String>,
    pub persona: String,
    pub verdicts: Vec<JudgeVerdict>,
    pub people: Vec<PersonLabel>,
    /// Some verdict reads the classifier as right where a person reads it
    /// as wrong, or the other way round (not only a step apart).
    pub reading_differs: bool,
}

/// The combinations shown and how many there are in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Disagreements {
    pub shown: Vec<Disagreement>,
    /// Combinations (under a persona) with a disagreement.
    pub combinations: usize,
    /// Judge-vs-person pairs that disagree.
    pub pairs: usize,
}

/// How badly a pair disagrees: `None` when it agrees (or is undecided
/// across scales); else whether the AGREE/DISAGREE readings differ and how
/// many steps apart the values are.
fn severity(p: &Pair) -> Option<(bool, u8)> {
    let readings = (p.a.as_agreement(), p.b.as_agreement());
    let reading_differs = matches!(readings, (Some(a), Some(b)) if a != b);
    if p.a.scale() == p.b.scale() {
        (p.a != p.b).then(|| (reading_differs, p.a.ordinal().abs_diff(p.b.ordinal())))
    } else {
        reading_differs.then_some((true, 1))
    }
}

/// A combination's worst disagreement and its pairs (agreeing ones too:
/// only the few shown are filtered again, no list is built per combination).
type Candidate<'a> = ((bool, u8), &'a [Pair]);

/// The combinations of `pairs` where a judge and a person disagree, worst
/// first (readings that differ, then the most steps apart, then by item),
/// at most [`MAX_SHOWN`] of them with their texts from `store`.
pub fn gather(pairs: &PairsByComparison, store: &Store) -> crate::store::Result<Disagreements> {
    let all = pairs
        .get(&Comparison::JudgeVsHuman)
        .map_or(&[][..], Vec::as_slice);
    // Pairs come sorted by combination and persona (each standing verdict
    // against every label there): one candidate per run of them.
    let same = |a: &Pair, b: &Pair| a.ctx.key == b.ctx.key && a.ctx.persona == b.ctx.persona;
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    let mut n_pairs = 0;
    for combination in all.chunk_by(|a, b| same(a, b)) {
        let mut worst = None;
        for s in combination.iter().filter_map(severity) {
            n_pairs += 1;
            worst = worst.max(Some(s));
        }
        if let Some(worst) = worst {
            candidates.push((worst, combination));
        }
    }
    let n_combinations = candidates.len();
    let order = |x: &Candidate<'_>, y: &Candidate<'_>| {
        let (p, q) = (&x.1[0], &y.1[0]);
        (Reverse(x.0), &p.ctx.key, &p.ctx.persona).cmp(&(Reverse(y.0), &q.ctx.key, &q.ctx.persona))
    };
    if candidates.len() > MAX_SHOWN {
        candidates.select_nth_unstable_by(MAX_SHOWN - 1, order);
        candidates.truncate(MAX_SHOWN);
    }
    candidates.sort_by(order);
    let shown = with_texts(store, &candidates)?;
    Ok(Disagreements {
        shown,
        combinations: n_combinations,
        pairs: n_pairs,
    })
}

/// The stored verdicts and labels of one item, and the item.
type ItemRows = (Option<crate::domain::Item>, Vec<Verdict>, Vec<Label>);

/// The chosen combinations with their item's title, the judges' reasoning
/// and the people's notes: one read of verdicts and labels per distinct item.
fn with_texts(store: &Store, chosen: &[Candidate<'_>]) -> crate::store::Result<Vec<Disagreement>> {
    let prompt_of_run: BTreeMap<i64, String> = store
        .runs()?
        .into_iter()
        .map(|r| (r.id, r.spec.prompt_hash))
        .collect();
    let mut items: BTreeMap<&str, ItemRows> = BTreeMap::new();
    for (_, ps) in chosen {
        let id = ps[0].ctx.key.item_id.as_str();
        if !items.contains_key(id) {
            let rows = (
                store.item(id)?,
                store.verdicts_for_item(id)?,
                store.labels_for_item(id)?,
            );
            items.insert(id, rows);
        }
    }
    let mut out = Vec::with_capacity(chosen.len());
    for ((worst, _), ps) in chosen {
        let first = &ps[0];
        let key = &*first.ctx.key;
        let (item, verdicts, labels) = &items[key.item_id.as_str()];
        let mut judges: Vec<JudgeVerdict> = Vec::new();
        let mut people: Vec<PersonLabel> = Vec::new();
        for p in ps.iter().filter(|p| severity(p).is_some()) {
            if !judges.iter().any(|j| *j.judge == *p.left) {
                judges.push(JudgeVerdict {
                    judge: p.left.to_string(),
                    value: p.a,
                    reasoning: standing(verdicts, p, &prompt_of_run)
                        .map(|v| crate::sanitize::truncate_chars(&v.text, MAX_TEXT)),
                });
            }
            if !people.iter().any(|l| *l.who == *p.right && l.value == p.b) {
                let note = labels.iter().rev().find(|l| {
                    l.key == *key
                        && *l.persona_id == *p.ctx.persona
                        && *l.who == *p.right
                        && l.value == p.b
                });
                people.push(PersonLabel {
                    who: p.right.to_string(),
                    value: p.b,
                    note: note
                        .map(|l| crate::sanitize::truncate_chars(&l.note, MAX_TEXT))
                        .unwrap_or_default(),
                });
            }
        }
        out.push(Disagreement {
            item_id: key.item_id.clone(),
            title: item
                .as_ref()
                .map(|i| crate::sanitize::truncate_chars(&i.title, 200))
                .unwrap_or_default(),
            classification: key.classification_id.clone(),
            perspective: key.perspective_id.clone(),
            classifier: item
                .as_ref()
                .and_then(|i| i.classification(&key.classification_id))
                .map(|c| c.selected_text().to_string()),
            persona: first.ctx.persona.to_string(),
            verdicts: judges,
            people,
            reading_differs: *worst,
        });
    }
    Ok(out)
}

/// The stored verdict a pair was made from: the latest of its judge
/// configuration (its prompt set too, where the report names it) on the
/// combination and persona.
fn standing<'a>(
    verdicts: &'a [Verdict],
    p: &Pair,
    prompt_of_run: &BTreeMap<i64, String>,
) -> Option<&'a Verdict> {
    let prompts = p.left.rsplit_once(" · prompts ").map(|(_, h)| h);
    verdicts.iter().rev().find(|v| {
        v.key == *p.ctx.key
            && *v.persona_id == *p.ctx.persona
            && v.protocol == p.ctx.protocol
            && v.mode == p.ctx.mode
            && *v.model == *p.ctx.model
            && prompts.is_none_or(|h| {
                prompt_of_run
                    .get(&v.run_id)
                    .is_some_and(|run| run.starts_with(h))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Agreement, ComboKey, Protocol};
    use crate::report::pairs::PairContext;
    use std::sync::Arc;

    fn pair(item: &str, judge: &str, who: &str, a: Value, b: Value) -> Pair {
        Pair {
            ctx: PairContext {
                key: Arc::new(ComboKey::new(item, "urgency", "classification")),
                protocol: Protocol::Awag,
                persona: Arc::from("kenton"),
                mode: None,
                model: Arc::from("m"),
                run: None,
            },
            left: Arc::from(judge),
            right: Arc::from(who),
            a,
            b,
        }
    }

    #[test]
    fn severity_puts_a_different_reading_before_a_step_apart() {
        let l = Value::Likert;
        assert_eq!(severity(&pair("i", "j", "a", l(4), l(4))), None);
        assert_eq!(severity(&pair("i", "j", "a", l(4), l(5))), Some((false, 1)));
        assert_eq!(severity(&pair("i", "j", "a", l(1), l(5))), Some((true, 4)));
        // Across scales only the readings count; Likert 3 is undecided.
        let agree = Value::Agreement(Agreement::Agree);
        assert_eq!(severity(&pair("i", "j", "a", l(5), agree)), None);
        assert_eq!(severity(&pair("i", "j", "a", l(3), agree)), None);
        assert_eq!(severity(&pair("i", "j", "a", l(2), agree)), Some((true, 1)));
    }

    #[test]
    fn only_the_worst_few_combinations_are_kept_and_every_one_is_counted() {
        let l = Value::Likert;
        let mut ps = Vec::new();
        for i in 0..(MAX_SHOWN + 50) {
            // Two people on each verdict: one a step away, one agreeing.
            ps.push(pair(&format!("i{i:04}"), "j", "alice", l(4), l(5)));
            ps.push(pair(&format!("i{i:04}"), "j", "bob", l(4), l(4)));
        }
        // A second judge on the first combination, against alice too.
        ps.insert(2, pair("i0000", "k", "alice", l(3), l(5)));
        ps.push(pair("z-last", "j", "alice", l(5), l(1)));
        let all = PairsByComparison::from([(Comparison::JudgeVsHuman, ps)]);
        let store = Store::open_in_memory().unwrap();
        let d = gather(&all, &store).unwrap();
        assert_eq!((d.combinations, d.pairs), (MAX_SHOWN + 51, MAX_SHOWN + 52));
        assert_eq!(d.shown.len(), MAX_SHOWN);
        // The one whose reading differs comes first though its id sorts last.
        assert_eq!(d.shown[0].item_id, "z-last");
        assert!(d.shown[0].reading_differs);
        assert_eq!(d.shown[1].item_id, "i0000");
        // One entry per combination: both judges, alice once, bob agrees.
        let judges: Vec<&str> = d.shown[1]
            .verdicts
            .iter()
            .map(|v| v.judge.as_str())
            .collect();
        assert_eq!(judges, ["j", "k"]);
        assert_eq!(d.shown[1].people.len(), 1);
        // Not in the store: no text rather than another verdict's.
        assert_eq!(d.shown[0].verdicts[0].reasoning, None);
    }
}

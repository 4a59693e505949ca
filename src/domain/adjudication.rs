//! Adjudication: where two or more people labelled one combination and
//! disagree, an adjudicator gives the reference label. Plain data and the
//! rules that decide what is a disagreement and what the reference is.

use super::{ComboKey, Label, Scale, Value};
use std::collections::{BTreeMap, HashMap};

/// The reference label of one combination, persona and scale, as given by
/// an adjudicator (`who`), with an optional note.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjudication {
    pub key: ComboKey,
    pub persona_id: String,
    pub value: Value,
    pub note: String,
    pub who: String,
    pub created_at: String,
}

/// Where an adjudication lives: one per combination, persona and scale
/// (the labels it settles share all three).
pub type AdjudicationSlot = (ComboKey, String, Scale);

impl Adjudication {
    pub fn slot(&self) -> AdjudicationSlot {
        (
            self.key.clone(),
            self.persona_id.clone(),
            self.value.scale(),
        )
    }
}

/// Two people's answers count as the same answer. A Likert 4 and a 5 are
/// the same ("the classifier was right", the reading every estimate uses),
/// as are 1 and 2; a 3 (undecided) differs from both sides. On the other
/// scales only equal values agree (a degree `partially` is not `fully`; a
/// score 6 is not a 7).
pub fn same_answer(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Likert(_), Value::Likert(_)) => match (a.as_agreement(), b.as_agreement()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => true,
            _ => false,
        },
        _ => a == b,
    }
}

/// One combination, persona and scale that people disagree on, with every
/// person's current label (and note), oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispute {
    pub key: ComboKey,
    pub persona_id: String,
    pub scale: Scale,
    pub labels: Vec<Label>,
}

/// Who `jury assign` gave each item to (item id → people).
pub type AssignedPeople = HashMap<String, std::collections::HashSet<String>>;

/// The adjudication queue: every combination, persona and scale where two
/// or more people labelled, at least two of their answers differ
/// ([`same_answer`]) and no adjudication stands yet. On an item with
/// assignments only the assigned people's labels count for the
/// disagreement (a passer-by's label does not make one, nor hide one);
/// the dispute still shows every label. Sorted by combination, persona
/// and scale, so the queue reads the same every time.
pub fn disputes(
    labels: impl IntoIterator<Item = Label>,
    adjudicated: &std::collections::HashSet<AdjudicationSlot>,
    assigned: &AssignedPeople,
) -> Vec<Dispute> {
    let mut by_slot: BTreeMap<(ComboKey, String, &'static str), Vec<Label>> = BTreeMap::new();
    for l in labels {
        let k = (
            l.key.clone(),
            l.persona_id.clone(),
            l.value.scale().as_str(),
        );
        by_slot.entry(k).or_default().push(l);
    }
    by_slot
        .into_iter()
        .filter_map(|((key, persona_id, _), labels)| {
            let scale = labels[0].value.scale();
            let people = assigned.get(&key.item_id);
            let counted: Vec<Value> = labels
                .iter()
                .filter(|l| people.is_none_or(|p| p.contains(&l.who)))
                .map(|l| l.value)
                .collect();
            let disagree = counted.iter().any(|&v| !same_answer(v, counted[0]));
            let settled = adjudicated.contains(&(key.clone(), persona_id.clone(), scale));
            (disagree && !settled).then_some(Dispute {
                key,
                persona_id,
                scale,
                labels,
            })
        })
        .collect()
}

/// Where a combination's reference reading came from (`jury report`,
/// `estimate`, `trust` say how many of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReferenceSource {
    /// An adjudicator's label.
    Adjudicated,
    /// The majority of two or more people's readings.
    Majority,
    /// One person's label (the majority of one).
    OnePerson,
}

/// How many combinations took their reference from where, and how many had
/// none (people tied, or only undecided answers): left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReferenceCounts {
    pub adjudicated: usize,
    pub majority: usize,
    pub one_person: usize,
    pub ties_left_out: usize,
}

impl ReferenceCounts {
    pub fn add(&mut self, source: Option<ReferenceSource>) {
        match source {
            Some(ReferenceSource::Adjudicated) => self.adjudicated += 1,
            Some(ReferenceSource::Majority) => self.majority += 1,
            Some(ReferenceSource::OnePerson) => self.one_person += 1,
            None => self.ties_left_out += 1,
        }
    }

    /// "reference: 2 adjudicated, 3 majority of people, 40 one person's, 1 tie left out".
    pub fn describe(&self) -> String {
        format!(
            "reference: {} adjudicated, {} majority of people, {} one person's, {} {} left out",
            self.adjudicated,
            self.majority,
            self.one_person,
            self.ties_left_out,
            if self.ties_left_out == 1 {
                "tie or undecided"
            } else {
                "ties or undecided"
            }
        )
    }
}

/// The adjudications standing, by slot (what the readings look up).
pub type AdjudicationIndex = HashMap<AdjudicationSlot, Value>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Agreement;

    fn label(item: &str, who: &str, v: Value) -> Label {
        Label {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "p".into(),
            value: v,
            note: format!("{who}'s note"),
            who: who.into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        }
    }

    #[test]
    fn likert_four_and_five_agree_three_differs_from_both_sides() {
        let l = Value::Likert;
        assert!(same_answer(l(4), l(5)));
        assert!(same_answer(l(1), l(2)));
        assert!(!same_answer(l(2), l(4)));
        assert!(!same_answer(l(3), l(4)));
        assert!(!same_answer(l(3), l(2)));
        assert!(same_answer(l(3), l(3)));
        let a = Value::Agreement;
        assert!(!same_answer(a(Agreement::Agree), a(Agreement::Disagree)));
        assert!(!same_answer(Value::Score(6), Value::Score(7)));
    }

    #[test]
    fn the_queue_holds_disagreements_of_two_or_more_people_not_yet_adjudicated() {
        let l = Value::Likert;
        let labels = vec![
            label("a", "ann", l(4)),
            label("a", "bob", l(5)), // same side: no dispute
            label("b", "ann", l(4)),
            label("b", "bob", l(2)), // dispute
            label("c", "ann", l(1)), // one person: no dispute
            label("d", "ann", l(5)),
            label("d", "bob", l(1)), // dispute, but adjudicated
            label("e", "ann", l(3)),
            label("e", "bob", l(4)),
            label("e", "cat", l(4)), // 3 vs 4: dispute
        ];
        let mut done = std::collections::HashSet::new();
        done.insert((
            ComboKey::new("d", "urgency", "classification"),
            "p".to_string(),
            Scale::Likert,
        ));
        let q = disputes(labels.clone(), &done, &AssignedPeople::new());
        let items: Vec<&str> = q.iter().map(|d| d.key.item_id.as_str()).collect();
        assert_eq!(items, ["b", "e"]);
        assert_eq!(q[1].labels.len(), 3);
        assert_eq!(q[0].labels[1].note, "bob's note");
        // Assigned to ann and bob: on "e" ann's 3 and bob's 4 still
        // differ; on "a" a passer-by's 1 makes no dispute.
        let mut with_passer_by = labels;
        with_passer_by.push(label("a", "dan", l(1)));
        let mut assigned = AssignedPeople::new();
        for item in ["a", "b", "e"] {
            assigned.insert(item.into(), ["ann", "bob"].map(String::from).into());
        }
        let q = disputes(with_passer_by.clone(), &done, &assigned);
        let items: Vec<&str> = q.iter().map(|d| d.key.item_id.as_str()).collect();
        assert_eq!(items, ["b", "e"], "dan's label on a is not a dispute");
        // Without assignments dan's 1 against ann's 4 is one.
        let q = disputes(with_passer_by.clone(), &done, &AssignedPeople::new());
        let items: Vec<&str> = q.iter().map(|d| d.key.item_id.as_str()).collect();
        assert_eq!(items, ["a", "b", "e"]);
        // "e" assigned to bob and cat, who agree (4 and 4): not disputed,
        // though ann (not assigned) answered 3.
        assigned.insert("e".into(), ["bob", "cat"].map(String::from).into());
        let q = disputes(with_passer_by, &done, &assigned);
        let items: Vec<&str> = q.iter().map(|d| d.key.item_id.as_str()).collect();
        assert_eq!(items, ["b"]);
    }

    #[test]
    fn reference_counts_read_as_a_line() {
        let mut c = ReferenceCounts::default();
        c.add(Some(ReferenceSource::Adjudicated));
        c.add(Some(ReferenceSource::Majority));
        c.add(Some(ReferenceSource::OnePerson));
        c.add(None);
        assert_eq!(
            c.describe(),
            "reference: 1 adjudicated, 1 majority of people, 1 one person's, 1 tie or undecided left out"
        );
    }
}

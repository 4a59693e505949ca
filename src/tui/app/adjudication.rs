//! The workbench's view of adjudication: which items hold a disagreement
//! between people that no one has adjudicated yet (the "to adjudicate"
//! filter), and the reference label standing on a row.

use super::workspace::Workspace;
use crate::domain::{Adjudication, ComboKey, Scale};

/// One adjudication of this session: the one it replaced (`None`: there
/// was none) and the one given, for `u`. `labels` and `marks` are the
/// lengths of the label and mark undo stacks when it was given: it is the
/// newest change while neither grew since.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjudicationStep {
    pub before: Option<Adjudication>,
    pub after: Adjudication,
    pub labels: usize,
    pub marks: usize,
}

impl Workspace {
    /// Whether item `i` holds a combination two or more people labelled and
    /// disagree on (see [`crate::domain::disputes`]) with no adjudication.
    pub fn disputed(&self, i: usize) -> bool {
        let id: &str = &self.items[i].id;
        let Some(entries) = self.labels.get(id).filter(|l| l.len() > 1) else {
            return false;
        };
        let done: std::collections::HashSet<_> = self
            .adjudications
            .get(id)
            .into_iter()
            .flatten()
            .map(Adjudication::slot)
            .collect();
        !crate::domain::disputes(
            entries.iter().map(|e| e.label.clone()),
            &done,
            &self.assigned_people_of(id),
        )
        .is_empty()
    }

    /// The people item `id` is assigned to, as [`crate::domain::disputes`]
    /// takes them (empty: not assigned, every label counts).
    fn assigned_people_of(&self, id: &str) -> crate::domain::AssignedPeople {
        self.team
            .people
            .get(id)
            .map(|p| (id.to_string(), p.clone()))
            .into_iter()
            .collect()
    }

    /// The standing adjudication of a row, if any.
    pub fn adjudication(
        &self,
        key: &ComboKey,
        persona: &str,
        scale: Scale,
    ) -> Option<&Adjudication> {
        self.adjudications
            .get(&key.item_id)?
            .iter()
            .find(|a| a.key == *key && a.persona_id == persona && a.value.scale() == scale)
    }

    /// Whether people disagree on a row (two or more labels that differ;
    /// on an assigned item, of the people assigned).
    pub fn row_disputed(&self, key: &ComboKey, persona: &str, scale: Scale) -> bool {
        let people = self.team.people.get(&key.item_id);
        let mut values = self
            .labels
            .get(&key.item_id)
            .into_iter()
            .flatten()
            .map(|e| &e.label)
            .filter(|l| l.key == *key && l.persona_id == persona && l.value.scale() == scale)
            .filter(|l| people.is_none_or(|p| p.contains(&l.who)))
            .map(|l| l.value);
        let Some(first) = values.next() else {
            return false;
        };
        values.any(|v| !crate::domain::same_answer(v, first))
    }

    /// Sets (or, `None`, removes) a row's standing adjudication as this
    /// session holds it.
    pub fn put_adjudication(
        &mut self,
        slot: &crate::domain::AdjudicationSlot,
        a: Option<Adjudication>,
    ) {
        let list = self
            .adjudications
            .entry(slot.0.item_id.clone())
            .or_default();
        list.retain(|x| x.slot() != *slot);
        list.extend(a);
    }
}

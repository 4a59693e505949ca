//! Working as a team on one store: the items `jury assign` gave this
//! person come first in their queue ("not labelled by me"); the item they
//! open from it is leased to them, so another person's queue passes over
//! it; and while an item is assigned to them and a row has no label of
//! theirs, the others' labels and notes on that row stay hidden (blind
//! double-coding, as blind review hides the judge).

use super::workspace::{Workspace, mark};
use super::{App, Filter};
use crate::domain::ComboKey;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// How long a lease runs when config.toml does not say (`lease_minutes`).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(5 * 60);

/// Test-only: a lease length in milliseconds, overriding `lease_minutes`.
pub const TEST_LEASE_ENV: &str = "JURY_TEST_LEASE_MS";

#[derive(Debug, Clone, PartialEq)]
pub struct Team {
    /// Workspace indexes of the items assigned to this person.
    pub mine: HashSet<u32>,
    /// Other people's leases that were running when last read: item → who.
    pub leased: HashMap<u32, String>,
    /// The item this person asked a lease on (None: holds none).
    pub held: Option<u32>,
    /// How long a lease runs.
    pub lease_for: Duration,
    /// Who every assigned item is given to (item id → people): on such an
    /// item only their labels make a disagreement to adjudicate.
    pub people: crate::domain::AssignedPeople,
}

impl Default for Team {
    fn default() -> Team {
        Team {
            mine: HashSet::new(),
            leased: HashMap::new(),
            held: None,
            lease_for: DEFAULT_LEASE,
            people: Default::default(),
        }
    }
}

impl Team {
    /// Others' leases as the store gave them (ids of items not in the
    /// workspace are left out); true when they changed.
    pub fn set_leases(
        &mut self,
        data_index: &HashMap<String, u32>,
        leases: &[crate::store::Lease],
    ) -> bool {
        let now: HashMap<u32, String> = leases
            .iter()
            .filter_map(|l| Some((*data_index.get(&l.item_id)?, l.who.clone())))
            .collect();
        let changed = now != self.leased;
        self.leased = now;
        changed
    }

    /// An item's place in my queue: assigned to me and free first, then
    /// the rest as today, then what someone else has open.
    fn rank(&self, i: u32) -> u8 {
        match (self.leased.contains_key(&i), self.mine.contains(&i)) {
            (false, true) => 0,
            (false, false) => 1,
            (true, _) => 2,
        }
    }
}

/// Orders my queue (stable: the chosen order within each part).
pub fn mine_first(data: &Workspace, filtered: &mut [u32]) {
    let t = &data.team;
    if t.mine.is_empty() && t.leased.is_empty() {
        return;
    }
    filtered.sort_by_key(|&i| t.rank(i));
}

impl App {
    /// Takes what `jury assign` gave this person (item ids) and the others'
    /// running leases, then lists again.
    pub fn set_team(
        &mut self,
        assigned: impl IntoIterator<Item = String>,
        leases: &[crate::store::Lease],
    ) {
        let idx = &self.data.index_of;
        self.data.team.mine = assigned
            .into_iter()
            .filter_map(|id| idx.get(&id).copied())
            .collect();
        let idx = self.data.index_of.clone();
        self.data.team.set_leases(&idx, leases);
        self.refilter();
    }

    /// Whether workspace item `i` is assigned to this person.
    pub fn assigned_to_me(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|i| self.data.team.mine.contains(&i))
    }

    /// The others' labels and notes on `key`'s row are hidden: this person
    /// has no label on it (`labelled` false) and either blind review is on
    /// or the item is assigned to them (blind double-coding).
    pub fn others_hidden(&self, key: &ComboKey, labelled: bool) -> bool {
        if labelled {
            return false;
        }
        self.choices.blind
            || self
                .data
                .index_of
                .get(&key.item_id)
                .is_some_and(|&i| self.data.team.mine.contains(&i))
    }

    /// Opens on my queue ("not labelled by me", my assigned items first,
    /// the first of them focused) when `jury assign` gave me items I have
    /// not finished: a team member starts where their work is, not on the
    /// first item of the store (reaching the queue took five `f`). True
    /// when it did.
    pub fn open_on_my_queue(&mut self) -> bool {
        let left = self.data.team.mine.iter().any(|&i| {
            self.data
                .marks
                .get(i as usize)
                .is_some_and(|m| m & mark::DONE == 0)
        });
        if !left {
            return false;
        }
        self.list.filter = Filter::NotMine;
        self.refilter();
        if let Some(&first) = self.list.filtered.first() {
            self.select_item(first as usize);
        }
        true
    }

    /// Under "not labelled by me" with items assigned: (done, assigned) —
    /// the assigned items with this person's label on every row shown.
    pub fn assigned_progress(&self) -> Option<(usize, usize)> {
        let mine = &self.data.team.mine;
        if self.list.filter != Filter::NotMine || mine.is_empty() {
            return None;
        }
        let done = mine
            .iter()
            .filter(|&&i| {
                self.data
                    .marks
                    .get(i as usize)
                    .is_some_and(|m| m & mark::DONE != 0)
            })
            .count();
        Some((done, mine.len()))
    }

    /// The item that should hold my lease now: the current item, when it
    /// is open from my queue and still needs me. Only a person `jury
    /// assign` gave work to takes leases: one working alone has no one to
    /// keep out (their session writes nothing new to the store).
    pub fn lease_wanted(&self) -> Option<u32> {
        if self.list.filter != Filter::NotMine || self.chrome.quit || self.data.team.mine.is_empty()
        {
            return None;
        }
        let i = self.list.current_index()?;
        (self.data.marks.get(i).is_some_and(|m| m & mark::DONE == 0)).then_some(i as u32)
    }
}

impl App {
    /// Whether this person has a label of their own on `key`'s row (any
    /// persona or scale: the history popup is per combination).
    fn labelled_by_me(&self, key: &ComboKey) -> bool {
        self.data
            .labels
            .get(&key.item_id)
            .into_iter()
            .flatten()
            .any(|e| e.label.key == *key && e.label.who == self.data.who)
    }

    /// A row's history as this person may see it: without the others'
    /// labels, notes and marks while [`App::others_hidden`] says so.
    pub fn visible_history(
        &self,
        key: &ComboKey,
        mut events: Vec<crate::store::LabelEvent>,
        mut marks: Vec<crate::store::MarkEvent>,
    ) -> (Vec<crate::store::LabelEvent>, Vec<crate::store::MarkEvent>) {
        if self.others_hidden(key, self.labelled_by_me(key)) {
            events.retain(|e| e.slot.who == self.data.who);
            marks.retain(|m| m.slot.who == self.data.who);
        }
        (events, marks)
    }
}

impl App {
    /// The list's marks for item `i` as this person may see them: on an
    /// item assigned to them that they have not labelled yet, "labelled"
    /// and "≠" are not shown (the others' are hidden on its rows),
    /// and blind review takes the judge's "≠" away as before.
    pub fn shown_marks(&self, i: usize) -> u8 {
        let mut m = self.data.marks.get(i).copied().unwrap_or(0);
        if self.choices.blind {
            m &= !mark::DISAGREE;
        }
        if self.assigned_to_me(i) && m & mark::DONE == 0 && !self.has_my_label(i) {
            m &= !(mark::LABELLED | mark::DISAGREE);
        }
        m
    }

    /// The list's ✎ for item `i`: a note on one of its labels; only this
    /// person's own on an item assigned to them that they have not labelled.
    pub fn shown_note(&self, i: usize) -> bool {
        let own_only = self.assigned_to_me(i)
            && self.data.marks.get(i).is_some_and(|m| m & mark::DONE == 0)
            && !self.has_my_label(i);
        let Some(it) = self.data.items.get(i) else {
            return false;
        };
        self.data.labels.get(&*it.id).is_some_and(|ls| {
            ls.iter()
                .any(|e| !e.label.note.is_empty() && (!own_only || e.label.who == self.data.who))
        })
    }

    fn has_my_label(&self, i: usize) -> bool {
        let Some(it) = self.data.items.get(i) else {
            return false;
        };
        self.data
            .labels
            .get(&*it.id)
            .is_some_and(|ls| ls.iter().any(|e| e.label.who == self.data.who))
    }
}

impl App {
    /// Under "not labelled by me" with items assigned to me: when the
    /// current item is not one of them, the cursor goes to the top of the
    /// queue (the first one that no one else has open).
    pub fn open_queue_at_my_first(&mut self) {
        if self.list.filter != Filter::NotMine
            || self.data.team.mine.is_empty()
            || self
                .list
                .current_index()
                .is_some_and(|i| self.assigned_to_me(i))
        {
            return;
        }
        if let Some(&first) = self.list.filtered.first() {
            self.select_item(first as usize);
        }
    }
}

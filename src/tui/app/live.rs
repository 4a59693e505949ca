//! Others' work, live: labels, notes and "come back later" marks that other
//! people write to the same store from their own processes appear in this
//! workbench within a second or two, with no restart (issue 32 §3).
//!
//! The store is checked off the screen's thread about once a second (see
//! [`crate::tui::update::live`]); when its change marker moved, the changed
//! items' labels and marks are read again and taken here. Only the others'
//! are taken: this person's own labels and marks are what this session
//! holds, pending writes and all — a read that raced one of its own writes
//! must not take a label just given back off the screen. What the others'
//! labels may show is decided where they are drawn, as for any label:
//! blind review and blind double-coding hide them there (see
//! [`super::team`]).

use super::{App, LabelEntry, SaveState};
use crate::domain::{Label, RowMark};
use crate::store::{ChangeMarker, Changed};
use std::collections::{BTreeSet, HashMap};

/// What this workbench knows of the store's changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    /// Where the label and mark histories ended when last read (at start,
    /// before the labels were loaded; then after each change taken).
    pub marker: ChangeMarker,
    /// A check was handed over and has not answered: no second one.
    pub asked: bool,
}

impl App {
    /// Takes the others' labels and marks on the changed items as the store
    /// holds them now (every item's when `changed.items` is None), keeps
    /// this person's own as the session holds them, and updates the list's
    /// marks and counts. Returns how many items were looked at.
    pub fn take_others_changes(&mut self, changed: Changed) -> usize {
        let who = self.data.who.clone();
        let mut labels: HashMap<String, Vec<Label>> = HashMap::new();
        for l in changed.labels.into_iter().filter(|l| l.who != who) {
            labels.entry(l.key.item_id.clone()).or_default().push(l);
        }
        let mut marks: HashMap<String, Vec<RowMark>> = HashMap::new();
        for m in changed.marks.into_iter().filter(|m| m.who != who) {
            marks.entry(m.key.item_id.clone()).or_default().push(m);
        }
        let items: BTreeSet<String> = match changed.items {
            Some(items) => items.into_iter().collect(),
            // Every item: those that held something and those that do now.
            None => (self.data.labels.keys())
                .chain(self.data.row_marks.keys())
                .chain(labels.keys())
                .chain(marks.keys())
                .cloned()
                .collect(),
        };
        for id in &items {
            let held = self.data.labels.remove(id).unwrap_or_default();
            let mut now: Vec<LabelEntry> =
                held.into_iter().filter(|e| e.label.who == who).collect();
            now.extend(
                labels
                    .remove(id)
                    .into_iter()
                    .flatten()
                    .map(|label| LabelEntry {
                        label,
                        state: SaveState::Saved,
                    }),
            );
            if !now.is_empty() {
                self.data.labels.insert(id.clone(), now);
            }
            let held = self.data.row_marks.remove(id).unwrap_or_default();
            let mut now: Vec<RowMark> = held.into_iter().filter(|m| m.who == who).collect();
            now.extend(marks.remove(id).into_iter().flatten());
            if !now.is_empty() {
                self.data.row_marks.insert(id.clone(), now);
            }
            if let Some(&i) = self.data.index_of.get(id) {
                self.item_changed(i as usize);
            }
        }
        self.data.live.marker = changed.marker;
        items.len()
    }
}

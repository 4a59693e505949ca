//! What is left for the current annotator: which rows of the current item
//! have no label from them, the next listed item that still needs them, and
//! where a label's row is (the focus moves there after a label and on undo).

use super::App;
use super::workspace::mark;
use crate::domain::{ComboKey, Scale};

/// Where the last label moved the focus from and to (workspace item index
/// and row): `n` right after it notes the label just given, not the row
/// the focus moved to. Lives until the next action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Advanced {
    pub from: (usize, usize),
    pub to: (usize, usize),
    /// `n` went back to the label: saving the note moves on again.
    pub noting: bool,
}

impl App {
    /// Per row of the current item (AwAg rows, then the other protocols'):
    /// it has no label from the current annotator and counts towards
    /// [`mark::DONE`] (the progress and the "not labelled by me" filter). An
    /// AwAg row counts on any scale under the item's persona in view; a
    /// protocol row, on its own scale, only on an item without
    /// classifications (a protocol input): beside classifications, a check
    /// row is labelled when a person chooses to.
    pub fn rows_needing_me(&self) -> Vec<bool> {
        let checks_count = self
            .current_item()
            .is_some_and(|i| i.classifications.is_empty());
        let mut out: Vec<bool> = self
            .rows()
            .iter()
            .map(|r| {
                self.combo(r)
                    .is_none_or(|k| self.my_label(&k, self.choices.mode.scale()).is_none())
            })
            .collect();
        out.extend(
            self.proto_rows()
                .iter()
                .map(|r| checks_count && self.proto_label(r).is_none()),
        );
        out
    }

    /// The position in the list of the next listed item after the cursor
    /// (then from the top) that still needs the annotator: some row it
    /// shows under the configuration in view has no label from them (the
    /// "not labelled by me" filter's definition).
    pub fn next_item_needing_me(&self) -> Option<usize> {
        let n = self.list.filtered.len();
        let needs =
            |pos: &usize| self.data.marks[self.list.filtered[*pos] as usize] & mark::DONE == 0;
        // One that no one else has open (a lease) first.
        let free = |pos: &usize| {
            !self
                .data
                .team
                .leased
                .contains_key(&self.list.filtered[*pos])
        };
        let after = || (1..n).map(|d| (self.list.cursor + d) % n);
        after()
            .find(|pos| needs(pos) && free(pos))
            .or_else(|| after().find(needs))
    }

    /// The row of the current item a label on `key` (on `scale`) is shown
    /// on, if the item shows it under the choices in view.
    pub fn row_of(&self, key: &ComboKey, scale: Scale) -> Option<usize> {
        let rows = self.rows();
        if let Some(r) = rows
            .iter()
            .position(|r| self.combo(r).as_ref() == Some(key))
        {
            return Some(r);
        }
        self.proto_rows()
            .iter()
            .position(|r| r.key == *key && r.scale == scale)
            .map(|p| rows.len() + p)
    }

    /// Puts the cursor on workspace item `i` when it is listed (the item
    /// pane then shows it); false when the filter, search or drill hide it.
    pub fn select_item(&mut self, i: usize) -> bool {
        let Some(pos) = self.list.filtered.iter().position(|&f| f as usize == i) else {
            return false;
        };
        self.list.cursor = pos;
        self.scroll_list_to_cursor();
        self.refresh_detail();
        true
    }
}

//! The store away and back (issue 32 §5): when the label writer loses the
//! store (a PostgreSQL server restarting, a network cut), every label it
//! refuses meanwhile goes to the recovery file at once (the file and
//! replay a locked SQLite store uses; a workbench killed now loses
//! nothing), and the screen says so; when the writer reaches the store
//! again, the unsaved labels are handed over on their own, and once saved
//! they leave the file. A label the store already holds is not stored
//! twice: the store's upsert of an identical label is a no-op.

use super::super::app::App;
use super::super::msg::Effect;
use super::retry_unsaved;
use crate::tui::strings::{flat, msg};

/// The writer lost the store: why.
pub fn unreachable(app: &mut App, why: &str) {
    let why = flat(why, 200);
    app.chrome.error(msg::store_unreachable(&why));
    app.data.store_away = Some(why);
}

/// After the writer refused a label: while the store is away, every
/// unsaved label goes to the recovery file now, not only at quit.
pub fn refused(app: &mut App, fx: &mut Vec<Effect>) {
    if app.data.store_away.is_none() {
        return;
    }
    let labels = app.unsaved_labels();
    if !labels.is_empty() {
        fx.push(Effect::KeepUnsaved(labels));
    }
}

/// The recovery file was written while the store is away: where.
pub fn kept(app: &mut App, path: &str) {
    app.chrome
        .warn(msg::kept_while_away(app.unsaved_count(), &flat(path, 200)));
}

/// The writer reaches the store again: the unsaved labels go to it.
pub fn back(app: &mut App, fx: &mut Vec<Effect>) {
    app.data.store_away = None;
    // Marks held while away go again, in the order they were made (a
    // replay of one the store took after all is a no-op there).
    fx.append(&mut app.data.marks_away);
    let labels = app.unsaved_labels();
    let n = retry_unsaved(app, fx);
    if n == 0 {
        app.chrome.info(msg::STORE_BACK);
        return;
    }
    app.data.back_replay.extend(labels);
    app.chrome.info(msg::store_back_saving(n));
}

/// After each answer of the writer: once nothing is pending, the labels
/// handed over when the store came back and now saved leave the file.
pub fn answered(app: &mut App, fx: &mut Vec<Effect>) {
    if app.data.back_replay.is_empty() || app.pending_count() > 0 {
        return;
    }
    let handed = std::mem::take(&mut app.data.back_replay);
    let still = super::quit::still_unsaved(app, handed.clone());
    let saved: Vec<_> = handed.into_iter().filter(|l| !still.contains(l)).collect();
    if saved.is_empty() {
        return;
    }
    app.chrome.info(msg::saved_after_away(saved.len()));
    fx.push(Effect::ForgetUnsaved(saved));
}

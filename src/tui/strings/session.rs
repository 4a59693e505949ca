//! Undo, label history, the kept session and the compare axes.

pub const NOTHING_TO_UNDO: &str = "nothing to undo: no label changed in this session";
pub const NO_ROW_FOR_HISTORY: &str = "no row focused: move to a verdict row for its history";
pub const LOADING_HISTORY: &str = "reading the label history…";
pub const NO_HISTORY: &str = "no label on this row yet";
pub const RETRACTED: &str = "retracted";
/// Heads the history's notes in full, before the changes.
pub const NOTES_NOW: &str = "notes on this row";
pub const CHANGES: &str = "changes, newest first";

/// Under a long note's first lines in the history.
pub fn note_more_lines(n: usize) -> String {
    format!("  … {n} more lines of this note")
}

/// Under a note whose lines were cut in the history.
pub fn note_more_chars(n: usize) -> String {
    format!("  … {n} more characters of this note")
}

/// `what` names the row ("urgency · k-001"); `back` the value restored.
pub fn undone(what: &str, undone: &str, back: Option<&str>) -> String {
    match back {
        Some(b) => format!("undone: {what} {undone} → back to {b}"),
        None => format!("undone: {what} {undone} → no label"),
    }
}
/// The undone label is on another item (`id`): the cursor went there.
pub fn undone_elsewhere(what: &str, undone: &str, back: Option<&str>, id: &str) -> String {
    format!("{} · now showing {id}", self::undone(what, undone, back))
}
/// The undone label's item is not in the list (a filter, search or drill).
pub fn undone_unlisted(what: &str, undone: &str, back: Option<&str>, id: &str) -> String {
    format!(
        "{} ({id} is not listed: the filter or search hides it)",
        self::undone(what, undone, back)
    )
}
pub fn undo_failed(what: &str, err: &str) -> String {
    format!("undo of {what} not saved: {err}")
}
pub fn history_title(what: &str) -> String {
    format!("label history · {what} · newest first")
}
pub fn history_failed(err: &str) -> String {
    format!("label history unreadable: {err}")
}
pub fn compare_axis(axis: &str) -> String {
    format!("compare by {axis}")
}
pub fn session_not_saved(err: &str) -> String {
    format!("the session (persona, mode, filter…) was not kept: {err}")
}
